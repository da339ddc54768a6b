import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { TestApp } from '../support/testApp.js';
import { startEdgeFixture, type EdgeFixture } from '../support/edgeFixture.js';
import { startNginx, type NginxHandle } from '../support/nginx.js';
import { CHROME_UA, FIREFOX_UA, GOOGLEBOT_UA } from '../support/readerVisits.js';
import { EDGE_UA, MOBILE_SAFARI_UA, expectBeaconPassed, launchChromiumFor, plainLoad, readAs, type ReadOptions } from '../support/edgeReaders.js';

/**
 * Issue #29's acceptance behind the shipped deploy/nginx/folio.conf: real Chromium loads post and
 * home pages by the blog's address, sent to nginx on loopback; pages come from nginx's cache
 * after their first load while the beacon's internal location passes every load to Folio
 * uncached, so each reader's load is counted exactly once, a crawler's never, and no cookie is
 * set. FOLIO_TRUST_PROXY=on: the address nginx appends to X-Forwarded-For is the reader's.
 */

let f: EdgeFixture;
let nginx: NginxHandle;
let t: TestApp;
let browser: Browser;
let blogId: string;
let origin: string;

beforeAll(async () => {
  // FOLIO_CDN_PURGE_WHOLE=paths: ngx_cache_purge has no host-wide ban (as nginxEdge.test.ts).
  f = await startEdgeFixture({ FOLIO_CDN_PURGE_WHOLE: 'paths', FOLIO_TRUST_PROXY: 'on' });
  t = f.t;
  nginx = await startNginx({ port: f.port, backends: f.backends });
  blogId = (await t.request('POST', '/v1/blogs', { body: { slug: 'edge', name: 'Edge of nginx' } })).body.id;
  for (const [title, slug] of [
    ['First light', 'first-light'],
    ['Second light', 'second-light'],
  ]) {
    await t.request('POST', '/v1/posts', { blogId, body: { title, slug, content: `The words of ${title}.`, status: 'published' } });
  }
  await t.folio.idle();
  origin = `http://${f.host}`;
  browser = await launchChromiumFor(new URL(origin).hostname);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await nginx?.stop();
  await f?.close();
});

const read = (path: string, userAgent: string, options?: ReadOptions): ReturnType<typeof readAs> => readAs(browser, origin, path, userAgent, options);

describe('page views through nginx in real Chromium', () => {
  it('counts each reader’s load of cached pages exactly once, across user agents; a crawler never; no cookie', async () => {
    const chrome = await read('/first-light', CHROME_UA, { reload: true });
    const firefox = await read('/first-light', FIREFOX_UA);
    const safari = await read('/first-light', MOBILE_SAFARI_UA, { mobile: true });
    // A reader who claims another address: nginx appends the one it saw, the only one believed.
    const spoofing = await read('/first-light', CHROME_UA, { headers: { 'x-forwarded-for': '203.0.113.7' } });
    const homeFirst = await read('/', CHROME_UA);
    const homeAgain = await read('/', FIREFOX_UA);
    const bot = await read('/first-light', GOOGLEBOT_UA);
    const readers = [chrome, firefox, safari, spoofing, homeFirst, homeAgain, bot];
    const loads = readers.flatMap((r) => r.loads);
    expect(loads).toHaveLength(8);
    // proxy_cache off: no cache status at all, so no X-Cache header on the beacon.
    for (const [i, load] of loads.entries()) expectBeaconPassed(load, `load ${i}\n${nginx.errors()}`, undefined);

    // The first load of each page filled the cache; every later one was served from it.
    expect(chrome.loads[0]!.pageHeaders['x-cache']).toBe('MISS');
    expect(homeFirst.loads[0]!.pageHeaders['x-cache']).toBe('MISS');
    for (const load of [chrome.loads[1]!, firefox.loads[0]!, safari.loads[0]!, spoofing.loads[0]!, homeAgain.loads[0]!, bot.loads[0]!]) {
      expect(load.pageHeaders['x-cache']).toBe('HIT');
    }
    for (const r of readers) expect(r.cookies).toBe(0);

    await t.folio.analytics.flush();
    // Chrome twice (a load and its reload), Firefox, Safari, the spoofing Chrome: 5 views by 3
    // visitors (one address, three user agents); Googlebot's load is not one of them.
    const post = (await t.request('GET', '/v1/analytics/posts/first-light', { blogId })).body;
    expect(post).toMatchObject({ views_30d: 5, visitors_30d: 3 });
    const overview = (await t.request('GET', '/v1/analytics/overview', { blogId })).body;
    expect(overview).toMatchObject({ total_views_30d: 7, visitors_30d: 3 });
    expect(overview.top_posts).toEqual([{ slug: 'first-light', title: 'First light', views: 5 }]);
  }, 300_000);

  it('takes the reader’s address from the X-Forwarded-For nginx writes, not from the one a reader sends', async () => {
    // Same user agent from two loopback addresses: two visitors only if Folio sees each address.
    const answers = [
      await plainLoad(f.port, f.host, '/second-light', { userAgent: EDGE_UA, from: '127.0.0.2' }),
      await plainLoad(f.port, f.host, '/second-light', { userAgent: EDGE_UA, from: '127.0.0.3' }),
      await plainLoad(f.port, f.host, '/second-light', { userAgent: EDGE_UA, from: '127.0.0.2', headers: { 'x-forwarded-for': '198.51.100.9' } }),
    ];
    for (const beacon of answers) {
      expect(beacon.status).toBe(200);
      expect(beacon.headers['cache-control']).toBe('no-store');
      expect(beacon.headers['set-cookie']).toBeUndefined();
    }
    await t.folio.analytics.flush();
    const post = (await t.request('GET', '/v1/analytics/posts/second-light', { blogId })).body;
    expect(post).toMatchObject({ views_30d: 3, visitors_30d: 2 });
  }, 120_000);
});
