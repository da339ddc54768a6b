/**
 * Issue #29 part 3: GET /v1/discover, the public search across the blogs whose owners opted in
 * (`discoverable`), over real HTTP and a real SQLite file: several accounts, Korean and English,
 * filters, pagination, validation, and opt-out, unpublish, delete and account delete seen by the
 * very next request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DISCOVER_LIMIT } from '../../src/http/routes/discover.js';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { buildBlog, buildPost, expectError, expectFieldError, postPath, type BuiltBlog } from '../support/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

let sent = 0;
/** GET /v1/discover without a key; a new minute of the fake clock before the per-address budget runs out. */
async function discover(params: Record<string, string | number>) {
  if (++sent % (DISCOVER_LIMIT.requests - 5) === 0) t.clock.advance(DISCOVER_LIMIT.windowMs);
  const query = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]));
  return t.request('GET', `/v1/discover?${query}`, { key: null });
}

async function slugsFor(params: Record<string, string | number>): Promise<string[]> {
  const res = await discover(params);
  expect(res.status, res.text).toBe(200);
  return res.body.data.map((hit: { slug: string }) => hit.slug);
}

async function setDiscoverable(blog: BuiltBlog, discoverable: boolean): Promise<void> {
  const res = await blog.actor.request('PUT', `/v1/blogs/${blog.id}`, { body: { discoverable } });
  expect(res.status, res.text).toBe(200);
  expect(res.body.discoverable).toBe(discoverable);
  // The opt-in's indexing is a background job.
  await t.folio.idle();
}

/** A word no other test uses, so each test sees only its own posts. */
const word = (() => {
  let n = 0;
  return (stem: string) => `${stem}${(++n).toString(36)}zq`;
})();

describe('GET /v1/discover', () => {
  let alice: BuiltBlog;
  let bob: BuiltBlog;
  let hidden: BuiltBlog;
  const marker = word('harbour');
  beforeAll(async () => {
    alice = await buildBlog(t, { name: 'Alice writes' });
    bob = await buildBlog(t, { name: 'Bob writes' });
    hidden = await buildBlog(t, { name: 'Not listed' });
    await buildPost(alice, { title: `The ${marker} at dawn`, slug: 'dawn', tags: ['sea'], status: 'published', published_at: '2026-01-02T00:00:00.000Z' });
    await buildPost(alice, { title: 'Draft about it', content: `A ${marker} draft.`, slug: 'draft' });
    await buildPost(bob, {
      title: `Sailing out of the ${marker}`,
      slug: 'sailing',
      tags: ['boats'],
      status: 'published',
      published_at: '2026-01-03T00:00:00.000Z',
    });
    await buildPost(bob, {
      title: '부산 항구의 아침',
      content: `${marker} 항구를 걸었다. 블로그를 씁니다.`,
      slug: 'busan',
      status: 'published',
      published_at: '2026-01-01T00:00:00.000Z',
    });
    await buildPost(hidden, { title: `A hidden ${marker}`, slug: 'hidden', status: 'published' });
    // Alice opts in after publishing (the job indexes what she has), Bob before his next post.
    await setDiscoverable(alice, true);
    await setDiscoverable(bob, true);
  });

  it('finds published posts of opted-in blogs of several accounts, newest first, without a key; never drafts or blogs that did not opt in', async () => {
    const res = await discover({ q: marker });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('x-ratelimit-limit')).toBe(String(DISCOVER_LIMIT.requests));
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(res.body.data.map((hit: { slug: string }) => hit.slug)).toEqual(['sailing', 'dawn', 'busan']);
    expect(res.body.pagination).toEqual({ page: 1, per_page: 20, total: 3, total_pages: 1 });
    expect(res.body.data[1]).toEqual({
      title: `The ${marker} at dawn`,
      slug: 'dawn',
      url: `${alice.url}dawn`,
      blog: { slug: alice.slug, name: 'Alice writes', url: alice.url },
      meta_description: expect.any(String),
      tags: ['sea'],
      lang: 'en',
      published_at: '2026-01-02T00:00:00.000Z',
    });
  });

  it('uses /search’s words: every word must match, Korean particles are understood, no prefixes', async () => {
    expect(await slugsFor({ q: `${marker} sailing` })).toEqual(['sailing']);
    expect(await slugsFor({ q: `${marker} nowhere` })).toEqual([]);
    // 항구의 is indexed as 항구; a query with another particle asks for the same.
    expect(await slugsFor({ q: '항구를' })).toEqual(expect.arrayContaining(['busan']));
    expect(await slugsFor({ q: `블로그 ${marker}` })).toEqual(['busan']);
    expect(await slugsFor({ q: marker.slice(0, -1) })).toEqual([]);
    // The query's syntax is never FTS syntax.
    expect(await slugsFor({ q: `"${marker}"* ^ (-:+` })).toEqual(['sailing', 'dawn', 'busan']);
    expect(await slugsFor({ q: `${marker} OR nowhere` })).toEqual([]);
    expect(await slugsFor({ q: '!!! ***' })).toEqual([]);
  });

  it('filters by tag and by language', async () => {
    expect(await slugsFor({ q: marker, tag: 'sea' })).toEqual(['dawn']);
    expect(await slugsFor({ q: marker, tag: 'Sea' })).toEqual([]);
    expect(await slugsFor({ q: marker, lang: 'ko' })).toEqual(['busan']);
    expect(await slugsFor({ q: marker, lang: 'en' })).toEqual(['sailing', 'dawn']);
  });

  it('pages: per_page, page, and empty pages past the end', async () => {
    const first = await discover({ q: marker, per_page: 2 });
    expect(first.body.data.map((hit: { slug: string }) => hit.slug)).toEqual(['sailing', 'dawn']);
    expect(first.body.pagination).toEqual({ page: 1, per_page: 2, total: 3, total_pages: 2 });
    expect(await slugsFor({ q: marker, per_page: 2, page: 2 })).toEqual(['busan']);
    expect(await slugsFor({ q: marker, per_page: 2, page: 3 })).toEqual([]);
    expect(await slugsFor({ q: marker, page: 1_000_000 })).toEqual([]);
  });

  it('answers malformed queries with 400 {error, message}', async () => {
    expectFieldError(await discover({}), 'q');
    expectFieldError(await discover({ q: '' }), 'q');
    expectFieldError(await discover({ q: 'x'.repeat(101) }), 'q');
    expectFieldError(await discover({ q: marker, per_page: 51 }), 'per_page');
    expectFieldError(await discover({ q: marker, per_page: 0 }), 'per_page');
    expectFieldError(await discover({ q: marker, page: 'two' }), 'page');
    expectFieldError(await discover({ q: marker, lang: 'fr' }), 'lang');
    expectFieldError(await discover({ q: marker, tag: 't'.repeat(51) }), 'tag');
    expectError(await discover({ q: marker, extra: 1 }), 400, 'bad_request');
    expect((await discover({ q: 'x'.repeat(100) })).status).toBe(200);
  });

  it('never shows scheduled posts, and shows a post once it is published', async () => {
    const blog = await buildBlog(t);
    await setDiscoverable(blog, true);
    const w = word('lantern');
    await buildPost(blog, { title: `Later ${w}`, slug: 'later' });
    const at = new Date(t.clock.now().getTime() + 3_600_000).toISOString();
    expect((await blog.actor.request('POST', postPath('later', '/schedule'), { blogId: blog.id, body: { scheduled_at: at } })).status).toBe(200);
    expect(await slugsFor({ q: w })).toEqual([]);
    expect((await blog.actor.request('POST', postPath('later', '/publish'), { blogId: blog.id })).status).toBe(200);
    expect(await slugsFor({ q: w })).toEqual(['later']);
  });

  it('follows edits, unpublish and delete on the very next request', async () => {
    const blog = await buildBlog(t);
    await setDiscoverable(blog, true);
    const before = word('kettle');
    const after = word('teapot');
    await buildPost(blog, { title: `A ${before}`, slug: 'pot', status: 'published' });
    await buildPost(blog, { title: `Another ${before}`, slug: 'other-pot', status: 'published' });
    expect(await slugsFor({ q: before })).toEqual(['other-pot', 'pot']);
    expect((await blog.actor.request('PUT', postPath('pot'), { blogId: blog.id, body: { title: `A ${after}` } })).status).toBe(200);
    expect(await slugsFor({ q: before })).toEqual(['other-pot']);
    expect(await slugsFor({ q: after })).toEqual(['pot']);
    expect((await blog.actor.request('POST', postPath('pot', '/unpublish'), { blogId: blog.id })).status).toBe(200);
    expect(await slugsFor({ q: after })).toEqual([]);
    expect((await blog.actor.request('DELETE', postPath('other-pot'), { blogId: blog.id })).status).toBe(200);
    expect(await slugsFor({ q: before })).toEqual([]);
    await t.folio.idle();
    expect(await t.folio.sql.get('SELECT COUNT(*) AS n FROM discovery_posts WHERE blog_id = ?', [blog.id])).toEqual({ n: 0 });
  });

  it('follows opt-out at once, opt-in again, and blog deletion', async () => {
    const blog = await buildBlog(t);
    const w = word('compass');
    await buildPost(blog, { title: `The ${w}`, slug: 'compass', status: 'published' });
    await setDiscoverable(blog, true);
    expect(await slugsFor({ q: w })).toEqual(['compass']);
    // Not even waiting for the job that drops the entries: the answer of the PUT is enough.
    expect((await blog.actor.request('PUT', `/v1/blogs/${blog.id}`, { body: { discoverable: false } })).status).toBe(200);
    expect(await slugsFor({ q: w })).toEqual([]);
    await t.folio.idle();
    expect(await t.folio.sql.get('SELECT COUNT(*) AS n FROM discovery_posts WHERE blog_id = ?', [blog.id])).toEqual({ n: 0 });
    await setDiscoverable(blog, true);
    expect(await slugsFor({ q: w })).toEqual(['compass']);
    expect((await blog.actor.request('DELETE', `/v1/blogs/${blog.id}`)).status).toBe(200);
    expect(await slugsFor({ q: w })).toEqual([]);
    await t.folio.idle();
    expect(await t.folio.sql.get('SELECT COUNT(*) AS n FROM discovery_posts WHERE blog_id = ?', [blog.id])).toEqual({ n: 0 });
  });

  it('returns discoverable in every blog answer; off by default, settable at creation', async () => {
    const made = await alice.actor.request('POST', '/v1/blogs', { body: { slug: `d-${word('x')}`, name: 'Listed', discoverable: true } });
    expect(made.status, made.text).toBe(201);
    expect(made.body.discoverable).toBe(true);
    expect((await hidden.actor.request('GET', `/v1/blogs/${hidden.id}`)).body.discoverable).toBe(false);
    const list = await alice.actor.request('GET', '/v1/blogs');
    expect(list.body.data.map((b: { discoverable: boolean }) => b.discoverable)).toEqual(expect.arrayContaining([true]));
    expectFieldError(await alice.actor.request('PUT', `/v1/blogs/${alice.id}`, { body: { discoverable: 'yes' } }), 'discoverable');
    // Another account cannot opt someone's blog in.
    expectError(await hidden.actor.request('PUT', `/v1/blogs/${alice.id}`, { body: { discoverable: false } }), 404, 'not_found');
  });

  it('limits each client address per minute: 429 with the rate-limit headers, a new minute restores it', async () => {
    t.clock.advance(DISCOVER_LIMIT.windowMs);
    for (let i = 0; i < DISCOVER_LIMIT.requests; i++) {
      const res = await t.request('GET', `/v1/discover?q=${marker}`, { key: null });
      expect(res.status, res.text).toBe(200);
    }
    const refused = await t.request('GET', `/v1/discover?q=${marker}`, { key: null });
    expectError(refused, 429, 'rate_limit_exceeded');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    t.clock.advance(DISCOVER_LIMIT.windowMs);
    sent = 0;
    expect((await discover({ q: marker })).status).toBe(200);
  });
});
