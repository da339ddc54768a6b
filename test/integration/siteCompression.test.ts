import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chooseEncoding } from '../../src/http/siteCompression.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

/** The site server compresses text (issue 11: Lighthouse's text-compression audit). */

function get(
  t: TestApp,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  const url = new URL(t.baseUrl);
  return new Promise((resolve, reject) => {
    const req = request({ hostname: url.hostname, port: url.port, path, headers: { host: 'zip.localhost:3000', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('compressed site responses', () => {
  let t: TestApp;
  let plain: Buffer;
  beforeAll(async () => {
    t = await startTestApp();
    const blogId = (await t.request('POST', '/v1/blogs', { body: { slug: 'zip', name: 'Zip' } })).body.id;
    await t.request('POST', '/v1/posts', {
      blogId,
      body: { title: 'A long read', content: 'Words that repeat compress well. '.repeat(400), status: 'published' },
    });
    plain = (await get(t, '/a-long-read', {})).body;
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers brotli when offered, gzip otherwise, the same page either way, and varies on Accept-Encoding', async () => {
    expect(plain.toString('utf8')).toContain('Words that repeat');
    const br = await get(t, '/a-long-read', { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.body.length).toBeLessThan(plain.length / 3);
    expect(brotliDecompressSync(br.body).equals(plain)).toBe(true);
    expect(br.headers.vary).toMatch(/Accept-Encoding/i);

    const gz = await get(t, '/a-long-read', { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).equals(plain)).toBe(true);

    const refused = await get(t, '/a-long-read', { 'accept-encoding': 'br;q=0, gzip;q=0.5' });
    expect(refused.headers['content-encoding']).toBe('gzip');
    const none = await get(t, '/a-long-read', { 'accept-encoding': 'identity' });
    expect(none.headers['content-encoding']).toBeUndefined();
    expect(none.body.equals(plain)).toBe(true);
  });

  it('gives each encoding its own ETag and answers 304 to it', async () => {
    const br = await get(t, '/a-long-read', { 'accept-encoding': 'br' });
    const identity = await get(t, '/a-long-read', {});
    expect(br.headers.etag).not.toBe(identity.headers.etag);
    expect((await get(t, '/a-long-read', { 'accept-encoding': 'br', 'if-none-match': String(br.headers.etag) })).status).toBe(304);
  });

  it('compresses the 404 page and feeds too, and leaves small bodies alone', async () => {
    const missing = await get(t, '/nothing-here', { 'accept-encoding': 'br' });
    expect(missing.status).toBe(404);
    expect(brotliDecompressSync(missing.body).toString('utf8')).toContain('Zip');
    const feed = await get(t, '/rss.xml', { 'accept-encoding': 'gzip' });
    expect(feed.headers['content-encoding']).toBe('gzip');
    const robots = await get(t, '/robots.txt', { 'accept-encoding': 'br' });
    expect(robots.body.length).toBeLessThan(1024);
    expect(robots.headers['content-encoding']).toBeUndefined();
  });

  it('reads Accept-Encoding as RFC 9110 says', () => {
    expect(chooseEncoding(undefined)).toBeNull();
    expect(chooseEncoding('br')).toBe('br');
    expect(chooseEncoding('gzip, br;q=0')).toBe('gzip');
    expect(chooseEncoding('*')).toBe('br');
    expect(chooseEncoding('*;q=0, gzip')).toBe('gzip');
    expect(chooseEncoding('deflate')).toBeNull();
    expect(chooseEncoding('GZIP')).toBe('gzip');
  });
});
