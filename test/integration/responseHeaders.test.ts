/**
 * What every API answer tells a browser (issue 27 item 30): no sniffing, no referrer, a CSP
 * that lets a JSON answer run and frame nothing; the API reference page keeps the policy
 * Swagger UI needs (test/browser/apiDocs.browser.test.ts renders it in Chromium). And a CONNECT
 * gets an answer instead of a silently closed connection.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { buildBlog, buildPost } from '../support/factories.js';
import { rawExchange } from '../support/rawHttp.js';
import { visit } from '../../bench/harness/visit.js';

const JSON_POLICY = "default-src 'none'; frame-ancestors 'none'";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('security headers of API answers', () => {
  it('sends nosniff, no-referrer and a CSP that allows nothing on answers and errors alike', async () => {
    const blog = await buildBlog(t);
    const answers = [
      await t.request('GET', '/healthz', { key: null }),
      await t.request('GET', '/v1/openapi.json', { key: null }),
      await blog.actor.request('GET', `/v1/blogs/${blog.id}`),
      await blog.actor.request('POST', '/v1/posts', { blogId: blog.id, body: { title: 'x', content: 'y' } }),
      await t.request('GET', '/v1/blogs', { key: null }), // 401
      await blog.actor.request('POST', '/v1/posts', { blogId: blog.id, raw: '{', headers: { 'content-type': 'application/json' } }), // 400
      await t.request('GET', '/v1/nothing-here'), // 404
      await t.request('GET', '/metrics', { key: null }),
    ];
    for (const res of answers) {
      const what = `${res.status} ${res.text.slice(0, 80)}`;
      expect(res.headers.get('x-content-type-options'), what).toBe('nosniff');
      expect(res.headers.get('referrer-policy'), what).toBe('no-referrer');
      expect(res.headers.get('content-security-policy'), what).toBe(JSON_POLICY);
    }
  });

  it("keeps the API reference page's own policy, and leaves published pages to the site server", async () => {
    const docs = await fetch(`${t.baseUrl}/v1/docs`);
    expect(docs.status).toBe(200);
    const policy = docs.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(docs.headers.get('x-content-type-options')).toBe('nosniff');

    const blog = await buildBlog(t);
    await buildPost(blog, { slug: 'hello', status: 'published' });
    await t.folio.idle();
    const page = await visit(t.baseUrl, new URL(blog.url).host, '/hello');
    expect(page.status, page.text.slice(0, 200)).toBe(200);
    expect(page.headers['content-security-policy']).not.toBe(JSON_POLICY);
  });
});

describe('CONNECT', () => {
  it('is answered 405 method_not_allowed in JSON, and the connection closes', async () => {
    const port = Number(new URL(t.baseUrl).port);
    const { response } = await rawExchange(port, ['CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n']);
    expect(response.status, response.raw.slice(0, 200)).toBe(405);
    expect(JSON.parse(response.body)).toEqual({ error: 'method_not_allowed', message: expect.stringContaining('CONNECT') });
    expect(response.headers.connection).toBe('close');
    expect(response.headers['content-type']).toMatch(/^application\/json/);
  });
});
