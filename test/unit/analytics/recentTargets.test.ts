import { describe, expect, it } from 'vitest';
import { RecentTargets } from '../../../src/analytics/recentTargets.js';
import type { Targets } from '../../../src/analytics/pageViews.js';
import type { ViewTarget } from '../../../src/analytics/viewCounter.js';
import { FakeClock } from '../../support/fakeClock.js';

/** A lookup over a map the test edits, counting how often it is asked. */
function source(published: Map<string, ViewTarget>): Targets & { asked: number } {
  return {
    asked: 0,
    async target(blogSlug, postSlug) {
      this.asked += 1;
      return published.get(`${blogSlug}/${postSlug ?? ''}`) ?? null;
    },
  };
}

describe('RecentTargets', async () => {
  it('answers a found target from memory until its time is up, then asks again', async () => {
    const published = new Map([['b/p', { blogId: 'B', postId: 'P' }]]);
    const lookup = source(published);
    const clock = new FakeClock();
    const targets = new RecentTargets(lookup, clock, { ttlMs: 5_000, entries: 100 });
    expect(await targets.target('b', 'p')).toEqual({ blogId: 'B', postId: 'P' });
    expect(await targets.target('b', 'p')).toEqual({ blogId: 'B', postId: 'P' });
    expect(lookup.asked).toBe(1);
    published.delete('b/p');
    clock.advance(5_001);
    expect(await targets.target('b', 'p')).toBeNull();
    expect(lookup.asked).toBe(2);
  });

  it('never remembers a miss: a post published just after one counts from its first load', async () => {
    const published = new Map<string, ViewTarget>();
    const lookup = source(published);
    const targets = new RecentTargets(lookup, new FakeClock(), { ttlMs: 5_000, entries: 100 });
    expect(await targets.target('b', 'new')).toBeNull();
    published.set('b/new', { blogId: 'B', postId: 'N' });
    expect(await targets.target('b', 'new')).toEqual({ blogId: 'B', postId: 'N' });
    expect(lookup.asked).toBe(2);
  });

  it('keeps the blog itself apart from its posts, and starts again past its bound', async () => {
    const published = new Map<string, ViewTarget>([['b/', { blogId: 'B', postId: null }]]);
    for (let i = 0; i < 10; i++) published.set(`b/p${i}`, { blogId: 'B', postId: `P${i}` });
    const lookup = source(published);
    const targets = new RecentTargets(lookup, new FakeClock(), { ttlMs: 5_000, entries: 4 });
    expect(await targets.target('b', null)).toEqual({ blogId: 'B', postId: null });
    for (let i = 0; i < 10; i++) expect(await targets.target('b', `p${i}`)).toEqual({ blogId: 'B', postId: `P${i}` });
    const asked = lookup.asked;
    // p9 is among the last entries kept; the blog's entry was dropped when the map started again.
    expect(await targets.target('b', 'p9')).toEqual({ blogId: 'B', postId: 'P9' });
    expect(lookup.asked).toBe(asked);
    expect(await targets.target('b', null)).toEqual({ blogId: 'B', postId: null });
    expect(lookup.asked).toBe(asked + 1);
  });
});
