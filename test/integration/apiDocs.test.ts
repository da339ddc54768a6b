import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ env: { FOLIO_PUBLIC_API_URL: 'https://api.example.com/v1' } });
});
afterAll(async () => t.close());

const assetsOf = (html: string) => [...html.matchAll(/(?:src|href)="(\/v1\/docs\/[^"]+)"/g)].map((m) => m[1]!);

describe('GET /v1/docs', () => {
  it('is an HTML reference page that loads only scripts served here, under a strict CSP', async () => {
    const res = await fetch(`${t.baseUrl}/v1/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await res.text();
    expect(html).toContain('<div id="swagger-ui"></div>');
    expect(html).not.toMatch(/<script>(?!<\/script>)/); // no inline script: the CSP forbids it
    expect(html).not.toMatch(/https?:\/\//); // nothing from a CDN
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    // "Try it out" may call the public API origin the document names.
    expect(csp).toMatch(/connect-src 'self' https:\/\/api\.example\.com(;|$)/);
    expect(assetsOf(html)).toHaveLength(4);
  });

  it('serves each asset from the installed swagger-ui-dist, versioned, immutable and compressed', async () => {
    const html = await (await fetch(`${t.baseUrl}/v1/docs`)).text();
    const version = (await import('swagger-ui-dist/package.json', { with: { type: 'json' } })).default.version;
    for (const path of assetsOf(html)) {
      expect(path.startsWith(`/v1/docs/${version}/`), path).toBe(true);
      const res = await fetch(`${t.baseUrl}${path}`, { headers: { 'accept-encoding': 'gzip' } });
      expect(res.status, path).toBe(200);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      const type = res.headers.get('content-type') ?? '';
      expect(type, path).toMatch(path.endsWith('.css') ? /^text\/css/ : path.endsWith('.js') ? /^text\/javascript/ : /^image\/png$/);
      if (path.endsWith('swagger-ui-bundle.js')) {
        // fetch decodes gzip itself: compare against the package's file.
        const { readFileSync } = await import('node:fs');
        const onDisk = readFileSync(new URL('../../node_modules/swagger-ui-dist/swagger-ui-bundle.js', import.meta.url));
        const body = Buffer.from(await res.arrayBuffer());
        expect(body.equals(onDisk)).toBe(true);
      }
    }
  });

  it('sends the bundle gzip-compressed to clients that accept it', async () => {
    const html = await (await fetch(`${t.baseUrl}/v1/docs`)).text();
    const bundle = assetsOf(html).find((p) => p.endsWith('swagger-ui-bundle.js'))!;
    const { request } = await import('node:http');
    const { headers, body } = await new Promise<{ headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
      request(`${t.baseUrl}${bundle}`, { headers: { 'accept-encoding': 'gzip' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
      })
        .on('error', reject)
        .end();
    });
    expect(headers['content-encoding']).toBe('gzip');
    const raw = gunzipSync(body);
    expect(body.length).toBeLessThan(raw.length / 2);
    expect(raw.toString('utf8', 0, 200)).toMatch(/SwaggerUI|swagger/i);
  });

  it('answers a JSON 404 for another file, another version or a path outside the package', async () => {
    for (const path of [
      '/v1/docs/0.0.0/swagger-ui-bundle.js',
      '/v1/docs/5.35.0/package.json',
      '/v1/docs/5.35.0/..%2F..%2Fpackage.json',
      '/v1/docs/5.35.0/index.html',
      '/v1/docs/5.35.0/hasOwnProperty',
      '/v1/docs/5.35.0/__proto__',
      '/v1/docs/5.35.0/constructor',
    ]) {
      const res = await t.request('GET', path, { key: null });
      expect(res.status, path).toBe(404);
      expect(res.body, path).toMatchObject({ error: 'not_found' });
    }
  });
});
