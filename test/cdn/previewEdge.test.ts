/**
 * Preview links behind the shipped caches (docs/dashboard.md#preview-links-and-live-preview):
 * when the API host itself is served through deploy/varnish/folio.vcl or deploy/nginx/folio.conf,
 * a preview page is never kept by the cache — each read reaches Folio, so an edit shows and a
 * revoked link is gone at once — while the theme's immutable stylesheet may be.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shippedVclFor, startVarnish, type VarnishHandle } from '../../bench/harness/varnish.js';
import { startEdgeFixture, type EdgeFixture } from '../support/edgeFixture.js';
import { startNginx, type NginxHandle } from '../support/nginx.js';

/** A host that is no blog: the cache hands it to Folio, which answers it from the API. */
const apiHost = (f: EdgeFixture) => `folio-api.example.net:${f.port}`;

async function previewThroughCache(f: EdgeFixture): Promise<void> {
  const { t } = f;
  const blogId = (await t.request('POST', '/v1/blogs', { body: { slug: 'edge', name: 'Edge previews' } })).body.id;
  const post = await t.request('POST', '/v1/posts', { blogId, body: { title: 'Behind the cache', content: 'First draft.' } });
  expect(post.status, post.text).toBe(201);
  const link = await t.request('POST', `/v1/posts/${post.body.slug}/preview-link`, { blogId, body: {} });
  expect(link.status, link.text).toBe(201);
  const path = new URL(link.body.url).pathname;
  const host = apiHost(f);

  const first = await f.edge(path, { host });
  expect(first.status, first.text).toBe(200);
  expect(first.text).toContain('First draft.');
  expect(first.headers['cache-control']).toBe('private, no-store');
  const again = await f.edge(path, { host });
  expect(again.status).toBe(200);
  expect(again.headers['x-cache']).not.toBe('HIT');

  // An edit shows on the next read, through the cache.
  expect((await t.request('PUT', `/v1/posts/${post.body.slug}`, { blogId, body: { content: 'Second draft.' } })).status).toBe(200);
  expect((await f.edge(path, { host })).text).toContain('Second draft.');

  // The stylesheet the page names loads through the cache too.
  const href = /<link rel="stylesheet" href="([^"]+)">/.exec(first.text)?.[1] ?? '';
  const css = await f.edge(href, { host });
  expect(css.status).toBe(200);
  expect(css.headers['content-type']).toMatch(/^text\/css/);

  // Revoked: gone at once, and stays gone.
  expect((await t.request('DELETE', `/v1/posts/${post.body.slug}/preview-link`, { blogId })).status).toBe(204);
  for (let i = 0; i < 2; i++) expect((await f.edge(path, { host })).status).toBe(404);
}

describe('deploy/varnish/folio.vcl in front of the API host', () => {
  let f: EdgeFixture;
  let varnish: VarnishHandle;
  beforeAll(async () => {
    f = await startEdgeFixture();
    varnish = await startVarnish({ port: f.port, vcl: shippedVclFor(f.backends) });
  }, 60_000);
  afterAll(async () => {
    await varnish?.stop();
    await f?.close();
  });

  it('never caches a preview page: edits show, a revoked link is 404 at once', async () => {
    await previewThroughCache(f);
  });
});

describe('deploy/nginx/folio.conf in front of the API host', () => {
  let f: EdgeFixture;
  let nginx: NginxHandle;
  beforeAll(async () => {
    f = await startEdgeFixture({ FOLIO_CDN_PURGE_WHOLE: 'paths' });
    nginx = await startNginx({ port: f.port, backends: f.backends });
  }, 60_000);
  afterAll(async () => {
    await nginx?.stop();
    await f?.close();
  });

  it('never caches a preview page: edits show, a revoked link is 404 at once', async () => {
    await previewThroughCache(f);
  });
});
