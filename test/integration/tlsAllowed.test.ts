/**
 * Issue 27 B12: GET /v1/tls/allowed?domain=<host>, the `ask` of Caddy's on-demand TLS
 * (deploy/caddy/Caddyfile): 200 only for hosts Folio serves (an existing blog's
 * <slug>.<service domain>, an active custom domain), 404 for anything else; no key; limited per
 * client address with the X-RateLimit-* headers and 429.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { buildBlog, expectError } from '../support/factories.js';
import { TLS_ASK_LIMIT } from '../../src/http/routes/tls.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const ask = (domain: string) => t.request('GET', `/v1/tls/allowed?domain=${encodeURIComponent(domain)}`, { key: null });

/** The same request from another loopback address (a second client). */
function askFrom(localAddress: string, domain: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const url = new URL(`/v1/tls/allowed?domain=${encodeURIComponent(domain)}`, t.baseUrl);
    const req = httpRequest(url, { localAddress, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('GET /v1/tls/allowed', () => {
  it("answers 200 for an existing blog's host on the service domain, without a key", async () => {
    const blog = await buildBlog(t);
    const res = await ask(`${blog.slug}.localhost`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ domain: `${blog.slug}.localhost`, allowed: true });
    expect(res.headers.get('x-ratelimit-limit')).toBe(String(TLS_ASK_LIMIT.requests));
    expect(Number(res.headers.get('x-ratelimit-remaining'))).toBeLessThan(TLS_ASK_LIMIT.requests);
    expect(Number(res.headers.get('x-ratelimit-reset'))).toBeGreaterThan(t.clock.now().getTime() / 1000);
    // SNI arrives in any case, maybe with the root's dot.
    expect((await ask(`${blog.slug.toUpperCase()}.LOCALHOST.`)).status).toBe(200);
  });

  it('answers 404 {error, message} for hosts Folio does not serve', async () => {
    const blog = await buildBlog(t);
    for (const host of [
      'no-such-blog.localhost',
      'localhost',
      `a.${blog.slug}.localhost`,
      'example.com',
      '127.0.0.1',
      '[::1]',
      `${blog.slug}.localhost.evil.net`,
      `${blog.slug}`,
    ]) {
      expectError(await ask(host), 404, 'not_found');
    }
  });

  it('follows a custom domain: 404 while pending, 200 once active, 404 again once removed', async () => {
    const blog = await buildBlog(t, { plan: 'enterprise' });
    const hostname = `tls-${blog.slug}.example.com`;
    const registration = (await blog.actor.request('POST', `/v1/blogs/${blog.id}/domain`, { body: { hostname } })).body;
    expectError(await ask(hostname), 404, 'not_found');
    t.satisfyDomainChallenge(registration);
    expect((await blog.actor.request('GET', `/v1/blogs/${blog.id}/domain`)).body.status).toBe('active');
    expect((await ask(hostname)).status).toBe(200);
    expect((await blog.actor.request('DELETE', `/v1/blogs/${blog.id}/domain`)).status).toBe(200);
    expectError(await ask(hostname), 404, 'not_found');
  });

  it('a deleted blog loses its host', async () => {
    const blog = await buildBlog(t);
    expect((await ask(`${blog.slug}.localhost`)).status).toBe(200);
    expect((await blog.actor.request('DELETE', `/v1/blogs/${blog.id}`)).status).toBe(200);
    expectError(await ask(`${blog.slug}.localhost`), 404, 'not_found');
  });

  it('refuses a missing or oversized domain with 400 {error, message}', async () => {
    expectError(await t.request('GET', '/v1/tls/allowed', { key: null }), 400, 'bad_request');
    expectError(await ask('a'.repeat(254)), 400, 'bad_request');
  });

  it('limits each client address per minute: 429 with Retry-After, other addresses unaffected, a new minute restores it', async () => {
    const blog = await buildBlog(t);
    const host = `${blog.slug}.localhost`;
    // The window is the fake clock's minute; this test starts a fresh one.
    t.clock.advance(TLS_ASK_LIMIT.windowMs);
    const batch = 50;
    for (let sent = 0; sent < TLS_ASK_LIMIT.requests; sent += batch) {
      const answers = await Promise.all(Array.from({ length: Math.min(batch, TLS_ASK_LIMIT.requests - sent) }, () => askFrom('127.0.0.1', host)));
      expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    }
    const refused = await ask(host);
    expectError(refused, 429, 'rate_limit_exceeded');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    // An unknown host counts too: a scanner cannot probe past the budget.
    expectError(await ask('no-such-blog.localhost'), 429, 'rate_limit_exceeded');

    const other = await askFrom('127.0.0.2', host);
    expect(other.status).toBe(200);
    expect(other.headers['x-ratelimit-remaining']).toBe(String(TLS_ASK_LIMIT.requests - 1));

    t.clock.advance(TLS_ASK_LIMIT.windowMs);
    expect((await ask(host)).status).toBe(200);
  });

  it('is in the OpenAPI document: no security, the rate-limit headers, 404 and 429', async () => {
    const doc = (await t.request('GET', '/v1/openapi.json', { key: null })).body;
    const op = doc.paths['/v1/tls/allowed'].get;
    expect(op.operationId).toBe('tlsAllowed');
    expect(op.security).toEqual([]);
    expect(op.parameters).toContainEqual(expect.objectContaining({ name: 'domain', in: 'query', required: true }));
    expect(Object.keys(op.responses['200'].headers)).toEqual(expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']));
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '400', '404', '429']));
    expect(op.responses).not.toHaveProperty('401');
  });
});
