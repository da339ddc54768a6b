import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { buildBlog, buildPost, expectError, expectFieldError, ISO_MS, jobsSince, postPath, sortedKeys, type BuiltBlog } from '../support/factories.js';

const SUMMARY_KEYS = ['created_at', 'id', 'meta_description', 'published_at', 'slug', 'status', 'tags', 'title', 'updated_at'];
const HOUR = 3_600_000;

let t: TestApp;
let blog: BuiltBlog;
let seq = 0;

beforeAll(async () => {
  t = await startTestApp();
  blog = await buildBlog(t, { plan: 'creator' });
});
afterAll(async () => t.close());

const future = (ms = HOUR): string => new Date(t.clock.now().getTime() + ms).toISOString();

async function postIn(state: 'draft' | 'published' | 'scheduled'): Promise<string> {
  seq += 1;
  const slug = `state-${state}-${seq}`;
  await buildPost(blog, { title: slug, slug, status: state === 'published' ? 'published' : 'draft' });
  if (state === 'scheduled') {
    const res = await blog.actor.request('POST', postPath(slug, '/schedule'), { blogId: blog.id, body: { scheduled_at: future() } });
    expect(res.status).toBe(200);
  }
  return slug;
}

const get = async (slug: string) => (await blog.actor.request('GET', postPath(slug), { blogId: blog.id })).body;
const publish = (slug: string) => blog.actor.request('POST', postPath(slug, '/publish'), { blogId: blog.id });
const unpublish = (slug: string) => blog.actor.request('POST', postPath(slug, '/unpublish'), { blogId: blog.id });
const schedule = (slug: string, at: string) => blog.actor.request('POST', postPath(slug, '/schedule'), { blogId: blog.id, body: { scheduled_at: at } });

describe('POST /v1/posts/:slug/publish', () => {
  it('moves a draft to published with exactly id, slug, url, status and published_at', async () => {
    const slug = await postIn('draft');
    t.clock.advance(1000);
    const res = await publish(slug);
    expect(res.status).toBe(200);
    expect(sortedKeys(res.body)).toEqual(['id', 'published_at', 'slug', 'status', 'url']);
    expect(res.body.status).toBe('published');
    expect(res.body.published_at).toMatch(ISO_MS);
    expect(res.body.published_at).toBe(t.clock.now().toISOString());
    expect(res.body.url).toBe(`http://${blog.slug}.localhost:3000/${slug}`);
    expect((await get(slug)).status).toBe('published');
  });

  it('moves a scheduled post to published and clears scheduled_at', async () => {
    const slug = await postIn('scheduled');
    const res = await publish(slug);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('published');
    const post = await get(slug);
    expect(post.scheduled_at).toBeNull();
    expect(post.published_at).toBe(t.clock.now().toISOString());
  });

  it('is idempotent on a published post and keeps the first published_at', async () => {
    const slug = await postIn('published');
    const first = (await get(slug)).published_at;
    t.clock.advance(60_000);
    const res = await publish(slug);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('published');
    expect(res.body.published_at).toBe(first);
  });

  it('answers 404 for an unknown slug and 400 for a body with fields', async () => {
    expectError(await publish('never-was'), 404, 'not_found');
    const slug = await postIn('draft');
    const res = await blog.actor.request('POST', postPath(slug, '/publish'), { blogId: blog.id, body: { status: 'published' } });
    expectError(res, 400, 'bad_request');
    expect((await get(slug)).status).toBe('draft');
  });
});

describe('POST /v1/posts/:slug/schedule', () => {
  it('schedules a draft with exactly slug, status and scheduled_at', async () => {
    const slug = await postIn('draft');
    const at = future(2 * HOUR);
    const res = await schedule(slug, at);
    expect(res.status).toBe(200);
    expect(sortedKeys(res.body)).toEqual(['scheduled_at', 'slug', 'status']);
    expect(res.body).toEqual({ slug, status: 'scheduled', scheduled_at: at });
    const post = await get(slug);
    expect(post.status).toBe('scheduled');
    expect(post.scheduled_at).toBe(at);
    expect(post.published_at).toBeNull();
  });

  it('reschedules a scheduled post', async () => {
    const slug = await postIn('scheduled');
    const later = future(5 * HOUR);
    const res = await schedule(slug, later);
    expect(res.status).toBe(200);
    expect(res.body.scheduled_at).toBe(later);
    expect((await get(slug)).scheduled_at).toBe(later);
  });

  it('answers 409 when the post is already published', async () => {
    const slug = await postIn('published');
    expectError(await schedule(slug, future()), 409, 'conflict');
    expect((await get(slug)).status).toBe('published');
  });

  it('normalises the time to UTC with milliseconds', async () => {
    const slug = await postIn('draft');
    const res = await schedule(slug, '2030-01-01T09:00:00+09:00');
    expect(res.body.scheduled_at).toBe('2030-01-01T00:00:00.000Z');
    const other = await postIn('draft');
    expect((await schedule(other, '2030-06-15T12:30:45.5-02:30')).body.scheduled_at).toBe('2030-06-15T15:00:45.500Z');
  });

  it('answers 400 for a time in the past or exactly now', async () => {
    const slug = await postIn('draft');
    expectFieldError(await schedule(slug, new Date(t.clock.now().getTime() - 1000).toISOString()), 'scheduled_at');
    expectFieldError(await schedule(slug, t.clock.now().toISOString()), 'scheduled_at');
    expect((await get(slug)).status).toBe('draft');
  });

  for (const bad of ['tomorrow', '2030-01-01', '2030-01-01T09:00:00', '2030-13-01T00:00:00Z', '2030-02-30T10:00:00Z', '2030-01-01T24:00:00Z', '']) {
    it(`answers 400 for the scheduled_at ${JSON.stringify(bad)}`, async () => {
      const slug = await postIn('draft');
      expectFieldError(await schedule(slug, bad), 'scheduled_at');
      expect((await get(slug)).status).toBe('draft');
    });
  }

  it('answers 400 when scheduled_at is missing or not a string', async () => {
    const slug = await postIn('draft');
    expectFieldError(await blog.actor.request('POST', postPath(slug, '/schedule'), { blogId: blog.id, body: {} }), 'scheduled_at');
    expectFieldError(await blog.actor.request('POST', postPath(slug, '/schedule'), { blogId: blog.id, body: { scheduled_at: 1893456000000 } }), 'scheduled_at');
  });

  it('answers 404 for an unknown slug', async () => {
    expectError(await schedule('not-here', future()), 404, 'not_found');
  });
});

describe('POST /v1/posts/:slug/unpublish', () => {
  it('moves a published post back to draft and answers the summary fields', async () => {
    const slug = await postIn('published');
    const res = await unpublish(slug);
    expect(res.status).toBe(200);
    expect(sortedKeys(res.body)).toEqual(SUMMARY_KEYS);
    expect(res.body.status).toBe('draft');
    expect(res.body.published_at).toBeNull();
  });

  it('moves a scheduled post back to draft and clears scheduled_at', async () => {
    const slug = await postIn('scheduled');
    const res = await unpublish(slug);
    expect(res.status).toBe(200);
    const post = await get(slug);
    expect(post.status).toBe('draft');
    expect(post.scheduled_at).toBeNull();
  });

  it('answers 409 when the post is already a draft', async () => {
    const slug = await postIn('draft');
    expectError(await unpublish(slug), 409, 'conflict');
  });
});

describe('PUT /v1/posts/:slug status', () => {
  it('publishes a draft with status published', async () => {
    const slug = await postIn('draft');
    const res = await blog.actor.request('PUT', postPath(slug), { blogId: blog.id, body: { status: 'published' } });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('published');
    expect(res.body.published_at).toBe(t.clock.now().toISOString());
  });

  it('moves a published post to draft with status draft', async () => {
    const slug = await postIn('published');
    const res = await blog.actor.request('PUT', postPath(slug), { blogId: blog.id, body: { status: 'draft' } });
    expect(res.body.status).toBe('draft');
    expect(res.body.published_at).toBeNull();
  });

  it('moves a scheduled post to draft with status draft, and to published with status published', async () => {
    const a = await postIn('scheduled');
    const toDraft = await blog.actor.request('PUT', postPath(a), { blogId: blog.id, body: { status: 'draft' } });
    expect(toDraft.body.status).toBe('draft');
    expect((await get(a)).scheduled_at).toBeNull();
    const b = await postIn('scheduled');
    const toLive = await blog.actor.request('PUT', postPath(b), { blogId: blog.id, body: { status: 'published' } });
    expect(toLive.body.status).toBe('published');
    expect((await get(b)).scheduled_at).toBeNull();
  });

  it('keeps the first published_at when a published post is updated with status published', async () => {
    const slug = await postIn('published');
    const first = (await get(slug)).published_at;
    t.clock.advance(30_000);
    const res = await blog.actor.request('PUT', postPath(slug), { blogId: blog.id, body: { status: 'published', title: 'Retitled' } });
    expect(res.body.published_at).toBe(first);
  });

  it('keeps a scheduled post scheduled when other fields change', async () => {
    const slug = await postIn('scheduled');
    const before = await get(slug);
    const res = await blog.actor.request('PUT', postPath(slug), { blogId: blog.id, body: { title: 'Still scheduled' } });
    expect(res.body.status).toBe('scheduled');
    expect((await get(slug)).scheduled_at).toBe(before.scheduled_at);
  });
});

describe('POST /v1/posts with status scheduled', () => {
  it('answers 400 naming status and stores nothing', async () => {
    const before = t.handledJobs.length;
    const res = await blog.actor.request('POST', '/v1/posts', {
      blogId: blog.id,
      body: { title: 'Sched', content: 'x', slug: 'create-scheduled', status: 'scheduled' },
    });
    expectFieldError(res, 'status');
    expectError(await blog.actor.request('GET', postPath('create-scheduled'), { blogId: blog.id }), 404, 'not_found');
    expect(jobsSince(t, before)).toEqual([]);
  });
});
