import { describe, expect, it } from 'vitest';
import { rememberedHosts } from '../../../src/http/beaconHosts.js';
import { NO_BLOG, type HostBlog } from '../../../src/services/siteHosts.js';
import { FakeClock } from '../../support/fakeClock.js';

/** A host lookup over a map the test edits, counting how often it is asked. */
function lookup(blogs: Map<string, HostBlog>): ((host: string) => Promise<HostBlog>) & { asked: number } {
  const fn = Object.assign(
    async (host: string): Promise<HostBlog> => {
      fn.asked += 1;
      return blogs.has(host) ? blogs.get(host)! : null;
    },
    { asked: 0 },
  );
  return fn;
}

describe('rememberedHosts (the beacon’s host lookup)', () => {
  it('answers a blog found from memory until its time is up, then asks the database again', async () => {
    const blogs = new Map<string, HostBlog>([['a.example.com', 'a']]);
    const source = lookup(blogs);
    const clock = new FakeClock();
    const hosts = rememberedHosts(source, clock, 5_000);
    expect(await hosts('a.example.com')).toBe('a');
    blogs.set('a.example.com', NO_BLOG); // the blog is deleted
    clock.advance(4_999);
    expect(await hosts('a.example.com')).toBe('a');
    expect(source.asked).toBe(1);
    clock.advance(2);
    expect(await hosts('a.example.com')).toBe(NO_BLOG);
    expect(source.asked).toBe(2);
  });

  it('never remembers a host that serves no blog: a blog created just after counts from its first load', async () => {
    const blogs = new Map<string, HostBlog>([['new.example.com', NO_BLOG]]);
    const source = lookup(blogs);
    const hosts = rememberedHosts(source, new FakeClock(), 5_000);
    expect(await hosts('new.example.com')).toBe(NO_BLOG);
    expect(await hosts('other.test')).toBeNull();
    blogs.set('new.example.com', 'new');
    expect(await hosts('new.example.com')).toBe('new');
    expect(source.asked).toBe(3);
  });
});
