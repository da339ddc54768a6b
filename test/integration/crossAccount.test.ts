import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestResponse } from '../support/testApp.js';
import { actorFor, buildBlog, buildPost, createKey, expectError, postPath, type Actor, type BuiltBlog } from '../support/factories.js';

/**
 * decisions.md: one account can never see or change another account's blogs, posts, keys or
 * domains; such ids answer 404 exactly as ids that do not exist. Account B probes every endpoint
 * with account A's ids, and each answer is compared with the answer for a missing id.
 */

const MISSING_ID = '00000000-0000-4000-8000-000000000000';
const MISSING_KEY = '00000000-0000-4000-8000-00000000beef';
const A_SLUG = 'a-private-post';
const A_DRAFT = 'a-private-draft';
const MISSING_SLUG = 'zz-no-such-post';
const A_HOST = 'a-blog.cross.example.com';

let t: TestApp;
let a: BuiltBlog;
let aKey: { id: string; key: string };
/** A's account key (the one its actor uses) and a second one, so neither is the last. */
let aAccountKeys: string[];
let b: BuiltBlog;
let bBound: Actor;

async function snapshotA(): Promise<unknown> {
  const { sql } = t.folio;
  return {
    blogs: await sql.all('SELECT * FROM blogs WHERE id = ?', [a.id]),
    posts: await sql.all('SELECT * FROM posts WHERE blog_id = ? ORDER BY id', [a.id]),
    tags: await sql.all('SELECT * FROM post_tags WHERE blog_id = ? ORDER BY post_id, tag', [a.id]),
    keys: await sql.all('SELECT * FROM api_keys WHERE account_id = ? ORDER BY id', [a.actor.accountId]),
    domains: await sql.all('SELECT * FROM domains WHERE blog_id = ?', [a.id]),
    jobs: await sql.all('SELECT * FROM publish_jobs WHERE blog_id = ? ORDER BY id', [a.id]),
    previewLinks: await sql.all('SELECT l.* FROM preview_links l JOIN posts p ON p.id = l.post_id WHERE p.blog_id = ? ORDER BY l.token_hash', [a.id]),
  };
}

let before: unknown;

beforeAll(async () => {
  t = await startTestApp();
  a = await buildBlog(t, { plan: 'enterprise' });
  await buildPost(a, { title: 'Private', slug: A_SLUG, tags: ['secret'], status: 'published' });
  await buildPost(a, { title: 'Private draft', slug: A_DRAFT });
  // Links of A's posts, which B's revoke probes must leave alone (snapshotA).
  for (const slug of [A_SLUG, A_DRAFT]) expect((await a.actor.request('POST', `/v1/posts/${slug}/preview-link`, { blogId: a.id, body: {} })).status).toBe(201);
  aKey = await createKey(a.actor, a.id, { name: 'A key' });
  const domain = await a.actor.request('POST', `/v1/blogs/${a.id}/domain`, { body: { hostname: A_HOST } });
  expect(domain.status).toBe(201);
  // Active, so that the hostname is A's (a pending registration reserves nothing).
  t.satisfyDomainChallenge(domain.body);
  expect((await a.actor.request('GET', `/v1/blogs/${a.id}/domain`)).body.status).toBe('active');
  await t.folio.idle();
  b = await buildBlog(t, { plan: 'enterprise' });
  bBound = actorFor(t, (await createKey(b.actor, b.id)).key, b.actor.accountId, 'enterprise');
  expect((await a.actor.request('POST', '/v1/account/api-keys', { body: { name: 'A second account key' } })).status).toBe(201);
  aAccountKeys = (await a.actor.request('GET', '/v1/account/api-keys')).body.data.map((k: { id: string }) => k.id);
  expect(aAccountKeys).toHaveLength(2);
  before = await snapshotA();
});
afterAll(async () => t.close());

interface Probe {
  name: string;
  method: string;
  /** `{blog}`, `{slug}` and `{key}` are filled in. */
  path: string;
  body?: unknown;
  /** Sends X-Blog-Id: {blog}. */
  header?: boolean;
}

const BLOG_ID_PROBES: Probe[] = [
  { name: 'GET /blogs/:id', method: 'GET', path: '/v1/blogs/{blog}' },
  { name: 'PUT /blogs/:id (name)', method: 'PUT', path: '/v1/blogs/{blog}', body: { name: 'Hijacked' } },
  { name: 'PUT /blogs/:id (theme_config)', method: 'PUT', path: '/v1/blogs/{blog}', body: { theme_config: { headerHtml: '<script>x</script>' } } },
  { name: 'DELETE /blogs/:id', method: 'DELETE', path: '/v1/blogs/{blog}' },
  { name: 'GET /blogs/:id/publishing', method: 'GET', path: '/v1/blogs/{blog}/publishing' },
  { name: 'POST /blogs/:id/api-keys', method: 'POST', path: '/v1/blogs/{blog}/api-keys', body: { name: 'stolen' } },
  { name: 'GET /blogs/:id/api-keys', method: 'GET', path: '/v1/blogs/{blog}/api-keys' },
  { name: 'DELETE /blogs/:id/api-keys/:keyId', method: 'DELETE', path: '/v1/blogs/{blog}/api-keys/{key}' },
  { name: 'POST /blogs/:id/domain', method: 'POST', path: '/v1/blogs/{blog}/domain', body: { hostname: 'b-takes-over.cross.example.com' } },
  { name: 'GET /blogs/:id/domain', method: 'GET', path: '/v1/blogs/{blog}/domain' },
  { name: 'DELETE /blogs/:id/domain', method: 'DELETE', path: '/v1/blogs/{blog}/domain' },
];

const POST_PROBES: Probe[] = [
  { name: 'GET /posts', method: 'GET', path: '/v1/posts', header: true },
  { name: 'GET /posts?status=published', method: 'GET', path: '/v1/posts?status=published&tag=secret', header: true },
  { name: 'POST /posts', method: 'POST', path: '/v1/posts', body: { title: 'Injected', content: 'x', status: 'published' }, header: true },
  { name: 'GET /posts/:slug', method: 'GET', path: '/v1/posts/{slug}', header: true },
  { name: 'PUT /posts/:slug', method: 'PUT', path: '/v1/posts/{slug}', body: { title: 'Defaced', status: 'draft' }, header: true },
  { name: 'DELETE /posts/:slug', method: 'DELETE', path: '/v1/posts/{slug}', header: true },
  { name: 'POST /posts/:slug/publish', method: 'POST', path: '/v1/posts/{slug}/publish', header: true },
  { name: 'POST /posts/:slug/schedule', method: 'POST', path: '/v1/posts/{slug}/schedule', body: { scheduled_at: '2031-01-01T00:00:00Z' }, header: true },
  { name: 'POST /posts/:slug/unpublish', method: 'POST', path: '/v1/posts/{slug}/unpublish', header: true },
  { name: 'GET /search', method: 'GET', path: '/v1/search?q=private', header: true },
  { name: 'GET /analytics/overview', method: 'GET', path: '/v1/analytics/overview', header: true },
  { name: 'GET /analytics/posts/:slug', method: 'GET', path: '/v1/analytics/posts/{slug}', header: true },
  { name: 'POST /preview', method: 'POST', path: '/v1/preview', body: { content_md: 'x' }, header: true },
  { name: 'POST /posts/:slug/preview-link', method: 'POST', path: '/v1/posts/{slug}/preview-link', body: {}, header: true },
  { name: 'DELETE /posts/:slug/preview-link', method: 'DELETE', path: '/v1/posts/{slug}/preview-link', header: true },
];

function send(actor: Actor, probe: Probe, ids: { blog: string; slug: string; key: string }): Promise<TestResponse> {
  const path = probe.path.replace('{blog}', ids.blog).replace('{slug}', encodeURIComponent(ids.slug)).replace('{key}', ids.key);
  return actor.request(probe.method, path, {
    ...(probe.body !== undefined ? { body: probe.body } : {}),
    ...(probe.header ? { blogId: ids.blog } : {}),
  });
}

describe('account B with account A’s blog id', () => {
  for (const probe of BLOG_ID_PROBES) {
    it(`answers 404 exactly as for a missing blog on ${probe.name}`, async () => {
      const foreign = await send(b.actor, probe, { blog: a.id, slug: A_SLUG, key: aKey.id });
      const missing = await send(b.actor, probe, { blog: MISSING_ID, slug: A_SLUG, key: MISSING_KEY });
      expectError(foreign, 404, 'not_found');
      expect(foreign.body).toEqual(missing.body);
    });
  }
});

describe('account B with X-Blog-Id of account A’s blog', () => {
  for (const probe of POST_PROBES) {
    for (const slug of [A_SLUG, A_DRAFT]) {
      if (!probe.path.includes('{slug}') && slug === A_DRAFT) continue;
      it(`answers 404 exactly as for a missing blog on ${probe.name}${probe.path.includes('{slug}') ? ` (${slug})` : ''}`, async () => {
        const foreign = await send(b.actor, probe, { blog: a.id, slug, key: aKey.id });
        const missing = await send(b.actor, probe, { blog: MISSING_ID, slug, key: aKey.id });
        expectError(foreign, 404, 'not_found');
        expect(foreign.body).toEqual(missing.body);
      });
    }
  }

  it('answers 404 to B’s blog-bound key naming A’s blog', async () => {
    for (const probe of POST_PROBES) {
      expectError(await send(bBound, probe, { blog: a.id, slug: A_SLUG, key: aKey.id }), 404, 'not_found');
    }
  });
});

describe('account B with account A’s post slugs on its own blog', () => {
  const slugProbes = POST_PROBES.filter((p) => p.path.includes('{slug}'));
  for (const probe of slugProbes) {
    it(`answers 404 exactly as for a missing slug on ${probe.name}`, async () => {
      for (const actor of [b.actor, bBound]) {
        const foreign = await send(actor, probe, { blog: b.id, slug: A_SLUG, key: aKey.id });
        const missing = await send(actor, probe, { blog: b.id, slug: MISSING_SLUG, key: aKey.id });
        expectError(foreign, 404, 'not_found');
        expect(foreign.body.message.replace(A_SLUG, '<slug>')).toBe(missing.body.message.replace(MISSING_SLUG, '<slug>'));
      }
    });
  }

  it('does not see A’s posts in its own lists or tag filters', async () => {
    const list = await b.actor.request('GET', '/v1/posts?tag=secret', { blogId: b.id });
    expect(list.body.data).toEqual([]);
    expect((await b.actor.request('GET', '/v1/posts', { blogId: b.id })).body.pagination.total).toBe(0);
  });
});

describe('account B with account A’s key id on its own blog', () => {
  it('answers 404 exactly as for a missing key id', async () => {
    const foreign = await b.actor.request('DELETE', `/v1/blogs/${b.id}/api-keys/${aKey.id}`);
    const missing = await b.actor.request('DELETE', `/v1/blogs/${b.id}/api-keys/${MISSING_KEY}`);
    expectError(foreign, 404, 'not_found');
    expect(foreign.body).toEqual(missing.body);
  });

  it('does not list A’s keys', async () => {
    const list = await b.actor.request('GET', `/v1/blogs/${b.id}/api-keys`);
    expect(list.body.data.map((k: { id: string }) => k.id)).not.toContain(aKey.id);
  });
});

describe('account B with account A’s key ids on /account/api-keys', () => {
  it('answers 404 exactly as for a missing key id, with B’s account key and B’s blog-bound key', async () => {
    for (const actor of [b.actor, bBound]) {
      const missing = await actor.request('DELETE', `/v1/account/api-keys/${MISSING_KEY}`);
      expectError(missing, 404, 'not_found');
      for (const id of [...aAccountKeys, aKey.id]) {
        const foreign = await actor.request('DELETE', `/v1/account/api-keys/${id}`);
        expectError(foreign, 404, 'not_found');
        expect(foreign.body).toEqual(missing.body);
      }
    }
  });

  it('does not list A’s keys, and a key B creates there belongs to B', async () => {
    const list = await b.actor.request('GET', '/v1/account/api-keys');
    for (const id of [...aAccountKeys, aKey.id]) expect(list.text).not.toContain(id);
    const made = await b.actor.request('POST', '/v1/account/api-keys', { body: { name: 'B only' } });
    expect(made.status).toBe(201);
    const row = await t.folio.sql.get('SELECT account_id, blog_id FROM api_keys WHERE id = ?', [made.body.id]);
    expect(row).toEqual({ account_id: b.actor.accountId, blog_id: null });
  });
});

describe('account B and account A’s domain', () => {
  it('cannot register A’s hostname for its own blog (409, as for any taken hostname)', async () => {
    expectError(await b.actor.request('POST', `/v1/blogs/${b.id}/domain`, { body: { hostname: A_HOST } }), 409, 'conflict');
  });

  it('does not see A’s blogs or domain in its own list', async () => {
    const list = await b.actor.request('GET', '/v1/blogs');
    expect(list.body.data.map((blog: { id: string }) => blog.id)).toEqual([b.id]);
    expect(list.text).not.toContain(A_HOST);
  });
});

describe('after every probe', () => {
  it('left account A’s blog, posts, keys, domain and jobs unchanged', async () => {
    expect(await snapshotA()).toEqual(before);
  });

  it('A still works with its own keys and sees its data', async () => {
    const posts = await t.request('GET', '/v1/posts', { key: aKey.key });
    expect(posts.status).toBe(200);
    expect(posts.body.data.map((p: { slug: string }) => p.slug).sort()).toEqual([A_DRAFT, A_SLUG]);
    const blog = await a.actor.request('GET', `/v1/blogs/${a.id}`);
    expect(blog.body).toMatchObject({ name: a.name, custom_domain: A_HOST, theme_config: {} });
    const post = await a.actor.request('GET', postPath(A_SLUG), { blogId: a.id });
    expect(post.body).toMatchObject({ title: 'Private', status: 'published' });
  });
});
