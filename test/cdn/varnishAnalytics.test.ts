import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/testApp.js';
import { startEdgeFixture, type EdgeFixture } from '../support/edgeFixture.js';
import { shippedVclFor, startVarnish, type VarnishHandle } from '../../bench/harness/varnish.js';
import { visit } from '../../bench/harness/visit.js';
import { CHROME_UA, FIREFOX_UA, GOOGLEBOT_UA, beaconOf } from '../support/readerVisits.js';

/**
 * Analytics behind the shipped deploy/varnish/folio.vcl (docs/analytics.md): pages come from the
 * bucket through the cache, and every load's beacon still reaches Folio, uncached, with the
 * reader's address in X-Forwarded-For (FOLIO_TRUST_PROXY=on).
 */

let f: EdgeFixture;
let varnish: VarnishHandle;
let t: TestApp;
let blog: { id: string; slug: string };

beforeAll(async () => {
  f = await startEdgeFixture({ FOLIO_TRUST_PROXY: 'on' });
  t = f.t;
  varnish = await startVarnish({ port: f.port, vcl: shippedVclFor(f.backends) });
  blog = (await t.request('POST', '/v1/blogs', { body: { slug: 'edge', name: 'Edge of the cache' } })).body;
  await t.request('POST', '/v1/posts', {
    blogId: blog.id,
    body: { title: 'First light', slug: 'first-light', content: 'The first words.', status: 'published' },
  });
  await t.folio.idle();
}, 60_000);

afterAll(async () => {
  await varnish?.stop();
  await f?.close();
});

/** A reader's load through the edge: the page (from the cache after the first), then its beacon. */
async function load(path: string, userAgent: string): Promise<{ pageCache: string | undefined; beacon: Awaited<ReturnType<typeof visit>> }> {
  const edge = `http://127.0.0.1:${f.port}`;
  const page = await visit(edge, f.host, path, { headers: { 'user-agent': userAgent } });
  expect(page.status, path).toBe(200);
  const src = beaconOf(page.text);
  expect(src, `${path} names its beacon`).not.toBeNull();
  const beacon = await visit(edge, f.host, src!, { headers: { 'user-agent': userAgent, referer: `http://${f.host}${path}` } });
  return { pageCache: page.headers['x-cache'] as string | undefined, beacon };
}

describe('the view beacon through Varnish', () => {
  it('counts every load of a cached page exactly once, and never caches the beacon', async () => {
    const loads = [
      await load('/first-light', CHROME_UA),
      await load('/first-light', CHROME_UA),
      await load('/first-light', FIREFOX_UA),
      await load('/', CHROME_UA),
    ];
    // Pages are served from the cache after their first load...
    expect(loads[1]!.pageCache).toBe('HIT');
    expect(loads[2]!.pageCache).toBe('HIT');
    // ...while every beacon went to Folio: an image no cache keeps, no cookie.
    for (const { beacon } of loads) {
      expect(beacon.status).toBe(200);
      expect(beacon.headers['content-type']).toBe('image/gif');
      expect(beacon.headers['cache-control']).toBe('no-store');
      expect(beacon.headers['x-cache']).toBe('MISS');
      expect(beacon.headers['set-cookie']).toBeUndefined();
    }
    // Not counted through the edge either: a crawler, and HEAD.
    await load('/first-light', GOOGLEBOT_UA);
    await visit(`http://127.0.0.1:${f.port}`, f.host, '/_folio/view.gif?p=first-light', {
      method: 'HEAD',
      headers: { 'user-agent': CHROME_UA, referer: `http://${f.host}/first-light` },
    });
    await t.folio.analytics.flush();

    const post = (await t.request('GET', '/v1/analytics/posts/first-light', { blogId: blog.id })).body;
    expect(post).toMatchObject({ views_30d: 3, visitors_30d: 2 });
    const overview = (await t.request('GET', '/v1/analytics/overview', { blogId: blog.id })).body;
    expect(overview).toMatchObject({ total_views_30d: 4, visitors_30d: 2 });
  });

  it('keeps the page address’s utm_source through the cache (the only referrer an edge leaves)', async () => {
    await load('/first-light?utm_source=newsletter', CHROME_UA);
    await t.folio.analytics.flush();
    const post = (await t.request('GET', '/v1/analytics/posts/first-light', { blogId: blog.id })).body;
    expect(post.referrers).toContainEqual({ host: 'newsletter', views: 1 });
  });
});
