import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDataEnv, startTestApp, type TestApp } from '../support/testApp.js';
import { FakeClock } from '../support/fakeClock.js';
import { actorFor, buildBlog, buildPost, jobsSince, postPath, type BuiltBlog } from '../support/factories.js';

const MINUTE = 60_000;

describe('scheduled posts with the running scheduler', () => {
  let t: TestApp;
  let blog: BuiltBlog;
  beforeAll(async () => {
    t = await startTestApp();
    blog = await buildBlog(t, { plan: 'creator' });
  });
  afterAll(async () => t.close());

  const get = async (slug: string) => (await blog.actor.request('GET', postPath(slug), { blogId: blog.id })).body;
  async function scheduled(slug: string, inMs: number): Promise<string> {
    await buildPost(blog, { title: slug, slug });
    const at = new Date(t.clock.now().getTime() + inMs).toISOString();
    const res = await blog.actor.request('POST', postPath(slug, '/schedule'), { blogId: blog.id, body: { scheduled_at: at } });
    expect(res.status).toBe(200);
    return at;
  }

  it('stays scheduled when the tick runs before scheduled_at', async () => {
    await scheduled('not-yet', 10 * MINUTE);
    t.clock.advance(10 * MINUTE - 1);
    await t.folio.tick();
    const post = await get('not-yet');
    expect(post.status).toBe('scheduled');
    expect(post.published_at).toBeNull();
  });

  it('becomes published on the first tick at or after scheduled_at, dated scheduled_at, with one post job', async () => {
    const at = await scheduled('on-time', 5 * MINUTE);
    t.clock.advance(5 * MINUTE);
    const before = t.handledJobs.length;
    await t.folio.tick();
    const post = await get('on-time');
    expect(post.status).toBe('published');
    expect(post.published_at).toBe(at);
    expect(post.scheduled_at).toBeNull();
    const jobs = jobsSince(t, before).filter((job) => job.payload.postId === post.id);
    expect(jobs).toEqual([{ kind: 'post', blogId: blog.id, payload: expect.objectContaining({ postId: post.id }) }]);
    const again = t.handledJobs.length;
    await t.folio.tick();
    expect(jobsSince(t, again)).toEqual([]);
  });

  it('publishes a post that is a few seconds overdue, keeping scheduled_at as published_at', async () => {
    const at = await scheduled('late-tick', MINUTE);
    t.clock.advance(MINUTE + 3000);
    await t.folio.tick();
    expect((await get('late-tick')).published_at).toBe(at);
  });

  it('does not publish a post that was unpublished back to draft before its time', async () => {
    await scheduled('cancelled', MINUTE);
    await blog.actor.request('POST', postPath('cancelled', '/unpublish'), { blogId: blog.id });
    t.clock.advance(2 * MINUTE);
    await t.folio.tick();
    expect((await get('cancelled')).status).toBe('draft');
  });

  it('follows a reschedule: not at the old time, but at the new one', async () => {
    await scheduled('moved', MINUTE);
    const later = new Date(t.clock.now().getTime() + 30 * MINUTE).toISOString();
    await blog.actor.request('POST', postPath('moved', '/schedule'), { blogId: blog.id, body: { scheduled_at: later } });
    t.clock.advance(2 * MINUTE);
    await t.folio.tick();
    expect((await get('moved')).status).toBe('scheduled');
    t.clock.advance(30 * MINUTE);
    await t.folio.tick();
    const post = await get('moved');
    expect(post.status).toBe('published');
    expect(post.published_at).toBe(later);
  });

  it('publishes every due post in one tick, more than one batch of 100', async () => {
    const many = await buildBlog(t, { actor: blog.actor });
    const at = new Date(t.clock.now().getTime() + MINUTE).toISOString();
    for (let i = 0; i < 103; i += 1) {
      const post = await buildPost(many, { title: `Batch ${i}` });
      await many.actor.request('POST', postPath(post.slug, '/schedule'), { blogId: many.id, body: { scheduled_at: at } });
    }
    t.clock.advance(MINUTE);
    await t.folio.tick();
    const res = await many.actor.request('GET', '/v1/posts?status=published&per_page=1', { blogId: many.id });
    expect(res.body.pagination.total).toBe(103);
    expect((await many.actor.request('GET', '/v1/posts?status=scheduled', { blogId: many.id })).body.pagination.total).toBe(0);
  });
});

describe('a schedule that fell due while the server was down', () => {
  let dataDir: string;
  /** The data both starts share: the data dir, and on the PostgreSQL pass a database of its own. */
  let env: Record<string, string>;
  let first: TestApp | undefined;
  let second: TestApp | undefined;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'folio-catchup-'));
    env = await freshDataEnv(dataDir);
  });
  afterAll(async () => {
    await first?.close().catch(() => undefined);
    await second?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('is published by the first tick of the next start, dated the scheduled time', async () => {
    const clock = new FakeClock('2026-05-01T08:00:00.000Z');
    first = await startTestApp({ dataDir, env, clock });
    const blog = await buildBlog(first, { actor: actorFor(first, first.key, first.accountId, 'enterprise') });
    await buildPost(blog, { title: 'While down', slug: 'while-down' });
    const at = '2026-05-01T09:00:00.000Z';
    const res = await blog.actor.request('POST', postPath('while-down', '/schedule'), { blogId: blog.id, body: { scheduled_at: '2026-05-01T11:00:00+02:00' } });
    expect(res.body.scheduled_at).toBe(at);
    await first.close();
    first = undefined;

    clock.advance(6 * 60 * MINUTE);
    second = await startTestApp({ dataDir, env, clock });
    const key = blog.actor.key;
    const beforeTick = await second.request('GET', postPath('while-down'), { key, blogId: blog.id });
    expect(beforeTick.body.status).toBe('scheduled');
    await second.folio.tick();
    const post = await second.request('GET', postPath('while-down'), { key, blogId: blog.id });
    expect(post.body.status).toBe('published');
    expect(post.body.published_at).toBe(at);
    expect(second.handledJobs.map((job) => job.kind)).toEqual(['post']);
    expect(second.handledJobs[0]!.payload.postId).toBe(post.body.id);
  });
});
