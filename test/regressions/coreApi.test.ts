/**
 * One test per bug the core API integration suite found (test/integration/*). Each names the
 * symptom; the broader coverage stays in the integration files.
 */
import { Agent, request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { FakeClock } from '../support/fakeClock.js';
import { actorFor, buildBlog, buildPost, expectError, expectFieldError, postPath } from '../support/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('regressions of the core API', () => {
  it('refuses impossible schedule times instead of rolling them over (2030-02-30 became March 2)', async () => {
    const blog = await buildBlog(t);
    const post = await buildPost(blog, { title: 'Impossible' });
    for (const at of ['2030-02-30T10:00:00Z', '2030-01-01T24:00:00Z', '2031-02-29T00:00:00Z']) {
      const res = await blog.actor.request('POST', postPath(post.slug, '/schedule'), { blogId: blog.id, body: { scheduled_at: at } });
      expectFieldError(res, 'scheduled_at');
    }
    const leap = await blog.actor.request('POST', postPath(post.slug, '/schedule'), { blogId: blog.id, body: { scheduled_at: '2032-02-29T00:00:00Z' } });
    expect(leap.body.scheduled_at).toBe('2032-02-29T00:00:00.000Z');
  });

  it('lists blogs and posts created in the same millisecond newest first (ties were broken by random id)', async () => {
    const actor = actorFor(t, t.key, t.accountId, 'enterprise');
    const blogs: string[] = [];
    for (let i = 0; i < 5; i += 1) blogs.push((await buildBlog(t, { actor })).id);
    const listed = (await actor.request('GET', '/v1/blogs')).body.data.map((b: { id: string }) => b.id);
    expect(listed.slice(0, 5)).toEqual([...blogs].reverse());
    const blog = await buildBlog(t);
    const slugs: string[] = [];
    for (let i = 0; i < 5; i += 1) slugs.push((await buildPost(blog, { title: `Tie ${i}` })).slug);
    const posts = (await blog.actor.request('GET', '/v1/posts', { blogId: blog.id })).body.data.map((p: { slug: string }) => p.slug);
    expect(posts).toEqual([...slugs].reverse());
  });

  it('closes the connection after a 413, so a keep-alive client’s next request is answered', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const send = (method: string, path: string, headers: Record<string, string>, chunks: Buffer[]) =>
      new Promise<number>((resolve, reject) => {
        const req = httpRequest(`${t.baseUrl}${path}`, { method, headers, agent }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'EPIPE' || err.code === 'ECONNRESET' ? undefined : reject(err)));
        for (const chunk of chunks) req.write(chunk);
        req.end();
      });
    try {
      const big = Array.from({ length: 12 }, () => Buffer.alloc(256 * 1024, 'a'));
      expect(
        await send('POST', '/v1/blogs', { authorization: `Bearer ${t.key}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, big),
      ).toBe(413);
      const next = await Promise.race([
        send('GET', '/healthz', {}, []),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the next request on the connection hung')), 3000)),
      ]);
      expect(next).toBe(200);
    } finally {
      agent.destroy();
    }
  });

  it('answers 400, not 500, for key scopes holding objects with a valueOf property', async () => {
    const blog = await buildBlog(t);
    const res = await blog.actor.request('POST', `/v1/blogs/${blog.id}/api-keys`, { body: { scopes: [{}, { valueOf: 9007199254740992 }] } });
    expectFieldError(res, 'scopes[0]');
  });

  it('documents paths a client can call: no /v1/v1 prefix, and /healthz and /v1/openapi.json included', async () => {
    const doc = (await t.request('GET', '/v1/openapi.json', { key: null })).body;
    const base = new URL(doc.servers[0].url).pathname.replace(/\/$/, '');
    const paths = Object.keys(doc.paths).map((p) => `${base}${p}`);
    expect(paths).toContain('/v1/posts');
    expect(paths).toContain('/healthz');
    expect(paths).toContain('/v1/openapi.json');
    expect(paths.some((p) => p.startsWith('/v1/v1/'))).toBe(false);
  });
});

describe('regressions of rate limiting', () => {
  let limited: TestApp;
  const clock = new FakeClock('2026-03-24T10:45:00.000Z');
  beforeAll(async () => {
    limited = await startTestApp({ env: { FOLIO_RATE_LIMITS: 'on' }, clock });
  });
  afterAll(async () => limited.close());

  it('measures retry_after on the service clock, like X-RateLimit-Reset (it used the wall clock)', async () => {
    const { key } = await limited.createAccount('free');
    for (let i = 0; i < 60; i += 1) await limited.request('GET', '/v1/blogs', { key });
    const res = await limited.request('GET', '/v1/blogs', { key });
    expectError(res, 429, 'rate_limit_exceeded');
    expect(res.body.retry_after).toBe(15 * 60);
    expect(res.headers.get('retry-after')).toBe('900');
    expect(Number(res.headers.get('x-ratelimit-reset')) - clock.now().getTime() / 1000).toBe(res.body.retry_after);
  });
});
