/**
 * Issue 27 B12: the shipped deploy/caddy/Caddyfile in Debian's caddy, with Caddy's internal CA
 * standing in for the ACME CA (test/support/caddy.ts), in front of the real Folio. An active
 * custom domain gets its certificate on demand, after Folio's GET /v1/tls/allowed said 200, and
 * serves the blog over HTTPS; a blog on the service domain is served under the wildcard
 * certificate; a host Folio does not serve gets no certificate: the handshake fails.
 */
import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { startCaddy, type CaddyHandle } from '../support/caddy.js';

const DOMAIN = 'blogs.test';
let t: TestApp;
let caddy: CaddyHandle;
let pendingHost: string;

interface HttpsAnswer {
  status: number;
  body: string;
  /** The server certificate's subjectAltName and issuer CN. */
  altNames: string;
  issuer: string;
}

/** GET over TLS to Caddy on loopback with this SNI (and Host), trusting only Caddy's local root. */
function httpsGet(servername: string, path = '/'): Promise<HttpsAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      { host: '127.0.0.1', port: caddy.httpsPort, servername, path, headers: { host: servername }, ca: caddy.rootCertificate(), agent: false, timeout: 20_000 },
      (res) => {
        const cert = (res.socket as TLSSocket).getPeerCertificate();
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, altNames: cert.subjectaltname ?? '', issuer: String(cert.issuer?.CN ?? '') }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  t = await startTestApp({ env: { FOLIO_SERVICE_DOMAIN: DOMAIN } });
  const blog = (await t.request('POST', '/v1/blogs', { body: { slug: 'edge', name: 'Behind Caddy' } })).body;
  await t.request('POST', '/v1/posts', { blogId: blog.id, body: { title: 'Sealed light', content: 'Over TLS.', status: 'published' } });
  const registration = (await t.request('POST', `/v1/blogs/${blog.id}/domain`, { body: { hostname: 'shop.example.com' } })).body;
  t.satisfyDomainChallenge(registration);
  expect((await t.request('GET', `/v1/blogs/${blog.id}/domain`)).body.status).toBe('active');
  // A second blog whose domain is registered but never verified.
  const other = (await t.request('POST', '/v1/blogs', { body: { slug: 'other', name: 'Pending' } })).body;
  pendingHost = 'pending.example.com';
  expect((await t.request('POST', `/v1/blogs/${other.id}/domain`, { body: { hostname: pendingHost } })).status).toBe(201);
  await t.folio.idle();

  const folio = new URL(t.baseUrl).host;
  caddy = await startCaddy({ env: { FOLIO_SERVICE_DOMAIN: DOMAIN, FOLIO_API_ADDRESS: folio, FOLIO_SITES_ADDRESS: folio } });
}, 60_000);

afterAll(async () => {
  await caddy?.stop();
  await t?.close();
});

describe('deploy/caddy/Caddyfile', () => {
  it('gives an active custom domain a certificate on demand and serves its blog over HTTPS', async () => {
    const home = await httpsGet('shop.example.com');
    expect(home.status, caddy.output()).toBe(200);
    expect(home.body).toContain('Sealed light');
    expect(home.altNames).toBe('DNS:shop.example.com');
    expect(home.issuer).toMatch(/Caddy Local Authority/);
    const page = await httpsGet('shop.example.com', '/sealed-light');
    expect(page.status).toBe(200);
    expect(page.body).toContain('Over TLS.');
  });

  it('serves a blog on the service domain under the wildcard certificate', async () => {
    await caddy.waitForCertificate(`*.${DOMAIN}`, 30_000);
    const home = await httpsGet(`edge.${DOMAIN}`);
    expect(home.status, caddy.output()).toBe(200);
    expect(home.body).toContain('Sealed light');
    expect(home.altNames).toBe(`DNS:*.${DOMAIN}`);
  });

  it('gives no certificate to a host Folio does not serve: the handshake fails', async () => {
    for (const host of ['stranger.example.net', pendingHost, DOMAIN]) {
      // A TLS alert from Caddy (no certificate for this name), not a refused connection.
      await expect(httpsGet(host), host).rejects.toThrow(/alert|ECONNRESET|socket hang up/i);
    }
    // Still none on a second try (the ask said 404; nothing was issued meanwhile).
    await expect(httpsGet('stranger.example.net')).rejects.toThrow();
  });

  it('redirects plain HTTP to HTTPS', async () => {
    const answer = await new Promise<{ status: number; location: string | undefined }>((resolve, reject) => {
      const req = httpRequest(
        { host: '127.0.0.1', port: caddy.httpPort, path: '/sealed-light', headers: { host: 'shop.example.com' }, agent: false },
        (res) => {
          res.resume();
          resolve({ status: res.statusCode ?? 0, location: res.headers.location });
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(answer.status).toBe(301);
    expect(answer.location).toBe('https://shop.example.com/sealed-light');
  });
});
