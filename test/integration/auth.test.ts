import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type Router from '@koa/router';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { actorFor, buildBlog, buildPost, createKey, expectError, type BuiltBlog } from '../support/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

/** Every route the Koa router serves, with a sample path (params filled in). */
function routerRoutes(app: TestApp): { method: string; path: string }[] {
  const dispatch = app.folio.app.middleware.find((fn) => 'router' in fn) as unknown as { router: Router } | undefined;
  if (!dispatch) throw new Error('no router in the app');
  return dispatch.router.stack.flatMap((layer) => layer.methods.filter((m) => m !== 'HEAD').map((method) => ({ method, path: String(layer.path) })));
}

describe('authentication', () => {
  let blog: BuiltBlog;
  beforeAll(async () => {
    blog = await buildBlog(t);
    await buildPost(blog, { title: 'x', slug: 'auth-post' });
  });

  it('answers 401 without an Authorization header on every authenticated route', async () => {
    // The open routes: health, the API document and reference, metrics (its own token), the TLS terminator's ask, discovery
    // and preview links' pages (the token is the permission).
    const routes = routerRoutes(t).filter(
      (r) =>
        !['/healthz', '/v1/openapi.json', '/metrics', '/v1/tls/allowed', '/v1/discover'].includes(r.path) &&
        !r.path.startsWith('/v1/docs') &&
        !r.path.startsWith('/preview/'),
    );
    expect(routes.length).toBeGreaterThanOrEqual(20);
    for (const route of routes) {
      const path = route.path.replace(':id', blog.id).replace(':slug', 'auth-post').replace(':keyId', '00000000-0000-4000-8000-000000000000');
      const res = await t.request(route.method, path, {
        key: null,
        blogId: blog.id,
        ...(route.method === 'POST' || route.method === 'PUT' ? { body: {} } : {}),
      });
      expectError(res, 401, 'unauthorized');
    }
    expect((await blog.actor.request('GET', '/v1/posts/auth-post', { blogId: blog.id })).body.title).toBe('x');
  });

  const malformed: [string, (key: string) => string][] = [
    ['an empty header', () => ''],
    ['only the scheme', () => 'Bearer'],
    ['the key without a scheme', (key) => key],
    ['the Basic scheme', (key) => `Basic ${Buffer.from(`${key}:`).toString('base64')}`],
    ['a pk_test_ key', (key) => `Bearer ${key.replace('pk_live_', 'pk_test_')}`],
    ['an sk_live_ key', (key) => `Bearer ${key.replace('pk_live_', 'sk_live_')}`],
    ['an unknown pk_live_ key', () => `Bearer pk_live_${'A'.repeat(43)}`],
    ['the bare prefix', () => 'Bearer pk_live_'],
    ['a key with one character changed', (key) => `Bearer ${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`],
    ['a truncated key', (key) => `Bearer ${key.slice(0, 20)}`],
    ['a key with a suffix', (key) => `Bearer ${key}x`],
    ['two tokens', (key) => `Bearer ${key} ${key}`],
  ];
  for (const [what, header] of malformed) {
    it(`answers 401 for ${what}`, async () => {
      const res = await t.request('GET', '/v1/blogs', { key: null, headers: { authorization: header(t.key) } });
      expectError(res, 401, 'unauthorized');
    });
  }

  it('accepts the Bearer scheme in any letter case', async () => {
    expect((await t.request('GET', '/v1/blogs', { key: null, headers: { authorization: `bearer ${t.key}` } })).status).toBe(200);
    expect((await t.request('GET', '/v1/blogs', { key: null, headers: { authorization: `BEARER ${t.key}` } })).status).toBe(200);
  });

  it('does not echo the key in a 401', async () => {
    const bogus = `pk_live_${'Z'.repeat(43)}`;
    const res = await t.request('GET', '/v1/blogs', { key: bogus });
    expectError(res, 401, 'unauthorized');
    expect(res.text).not.toContain(bogus);
  });

  it('answers 401 to a revoked key on the very next request', async () => {
    const key = await createKey(blog.actor, blog.id);
    expect((await t.request('GET', '/v1/posts', { key: key.key })).status).toBe(200);
    await blog.actor.request('DELETE', `/v1/blogs/${blog.id}/api-keys/${key.id}`);
    expectError(await t.request('GET', '/v1/posts', { key: key.key }), 401, 'unauthorized');
  });

  it('needs no key for /healthz and /v1/openapi.json', async () => {
    expect((await t.request('GET', '/healthz', { key: null })).status).toBe(200);
    expect((await t.request('GET', '/v1/openapi.json', { key: null })).status).toBe(200);
  });
});

describe('blog resolution for post and search routes', () => {
  let blog: BuiltBlog;
  let sibling: BuiltBlog;
  let foreign: BuiltBlog;
  beforeAll(async () => {
    blog = await buildBlog(t);
    sibling = await buildBlog(t, { actor: blog.actor });
    foreign = await buildBlog(t);
    await buildPost(blog, { title: 'In main', slug: 'in-main' });
    await buildPost(sibling, { title: 'In sibling', slug: 'in-sibling' });
  });

  it('answers 400 "blog not resolved" to an account key without X-Blog-Id', async () => {
    for (const [method, path, body] of [
      ['GET', '/v1/posts'],
      ['POST', '/v1/posts', { title: 'x', content: 'y' }],
      ['GET', '/v1/posts/in-main'],
      ['POST', '/v1/posts/in-main/publish'],
      ['GET', '/v1/search?q=hello'],
    ] as [string, string, unknown?][]) {
      const res = await blog.actor.request(method, path, body === undefined ? {} : { body });
      expectError(res, 400, 'bad_request');
      expect(res.body.message).toMatch(/blog not resolved/);
      expect(res.body.message).toMatch(/X-Blog-Id/);
    }
    expect((await blog.actor.request('GET', '/v1/posts/in-main', { blogId: blog.id })).body.status).toBe('draft');
  });

  it('answers 404 for an X-Blog-Id of another account’s blog, as for an unknown one', async () => {
    const foreignRes = await blog.actor.request('GET', '/v1/posts', { blogId: foreign.id });
    const unknownRes = await blog.actor.request('GET', '/v1/posts', { blogId: '00000000-0000-4000-8000-000000000000' });
    expectError(foreignRes, 404, 'not_found');
    expectError(unknownRes, 404, 'not_found');
    expect(foreignRes.body).toEqual(unknownRes.body);
    expectError(await blog.actor.request('GET', '/v1/posts', { blogId: 'not a uuid' }), 404, 'not_found');
  });

  it('lets a blog-bound key work without X-Blog-Id, on its own blog', async () => {
    const bound = actorFor(t, (await createKey(blog.actor, blog.id)).key, blog.actor.accountId, 'enterprise');
    const res = await bound.request('GET', '/v1/posts');
    expect(res.status).toBe(200);
    expect(res.body.data.map((p: { slug: string }) => p.slug)).toEqual(['in-main']);
    const search = await bound.request('GET', '/v1/search?q=main');
    expect(search.status).toBe(200);
  });

  it('lets X-Blog-Id choose another blog of the same account over the key’s binding', async () => {
    const bound = actorFor(t, (await createKey(blog.actor, blog.id)).key, blog.actor.accountId, 'enterprise');
    const res = await bound.request('GET', '/v1/posts', { blogId: sibling.id });
    expect(res.body.data.map((p: { slug: string }) => p.slug)).toEqual(['in-sibling']);
  });

  it('answers 404 to a blog-bound key naming another account’s blog in X-Blog-Id', async () => {
    const bound = actorFor(t, (await createKey(blog.actor, blog.id)).key, blog.actor.accountId, 'enterprise');
    expectError(await bound.request('GET', '/v1/posts', { blogId: foreign.id }), 404, 'not_found');
    expectError(await bound.request('POST', '/v1/posts', { blogId: foreign.id, body: { title: 'x', content: 'y' } }), 404, 'not_found');
    const foreignPosts = await foreign.actor.request('GET', '/v1/posts', { blogId: foreign.id });
    expect(foreignPosts.body.data).toEqual([]);
  });
});
