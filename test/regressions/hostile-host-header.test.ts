/**
 * Regression (hardening issue, item 4): a dotted Host with `/`, `\`, `..` or a leading dot
 * reached `store.get('_domains/' + host)` in the site server and the folder store threw: 500.
 * Hosts are now checked as DNS names and resolved from the database; anything else is not a
 * blog and the request goes on to the API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBlog, buildPost } from '../support/factories.js';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { visit } from '../../bench/harness/visit.js';

let t: TestApp;
let slug: string;

beforeAll(async () => {
  t = await startTestApp();
  const blog = await buildBlog(t);
  slug = blog.slug;
  await buildPost(blog, { title: 'Hello', slug: 'hello', status: 'published' });
});
afterAll(async () => t.close());

const HOSTS = [
  'a.b/..',
  'a.b/../..',
  'a.b\\..',
  '..a.b',
  '.a.b',
  'a..b',
  'a.b/',
  'a.b/%2e%2e',
  'x.localhost/..',
  '_domains.a.b',
  `${'x'.repeat(64)}.example.com`,
  `${'a.'.repeat(200)}com`,
  'exa mple.com',
  '[::1]:3000',
  '127.0.0.1:3000',
  'caf\u00e9.example',
  'xn--3e0b707e.example',
  'example.com:99999999',
];

describe('hostile Host headers', () => {
  it.each(HOSTS)('%j is never a 500 and never serves a blog', async (host) => {
    for (const path of ['/', '/hello', '/healthz', '/v1/nothing']) {
      const res = await visit(t.baseUrl, host, path);
      expect(res.status, `${host} ${path}: ${res.text}`).toBeLessThan(500);
      expect(res.text).not.toContain('Hello');
    }
  });

  it('a blog host with a path suffix or odd case still resolves only as a DNS name', async () => {
    expect((await visit(t.baseUrl, `${slug}.localhost:3000`, '/hello')).status).toBe(200);
    expect((await visit(t.baseUrl, `${slug.toUpperCase()}.LOCALHOST:3000`, '/hello')).status).toBe(200);
    expect((await visit(t.baseUrl, `${slug}.localhost.`, '/hello')).status).toBe(200);
    const res = await visit(t.baseUrl, `${slug}.localhost/..`, '/hello');
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/application\/json/);
  });
});
