import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../../bench/harness/chromium.js';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { CHROME_UA, FIREFOX_UA, GOOGLEBOT_UA } from '../support/readerVisits.js';

/**
 * Reader analytics in real Chromium (docs/analytics.md): a page load fetches its beacon by itself,
 * without JavaScript or cookies, and is counted exactly once; a crawler's load is not.
 */

const SAFARI_UA = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

describe('page views counted from real page loads', () => {
  let t: TestApp;
  let browser: Browser;
  let origin: string;
  let blogId: string;

  beforeAll(async () => {
    t = await startTestApp();
    blogId = (await t.request('POST', '/v1/blogs', { body: { slug: 'counted', name: 'Counted Notes' } })).body.id;
    await t.request('POST', '/v1/posts', { blogId, body: { title: 'Counted once', slug: 'counted-once', content: 'Read me.', status: 'published' } });
    await t.folio.idle();
    origin = `http://counted.localhost:${new URL(t.baseUrl).port}`;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** Loads `path` as a reader with `userAgent`; returns how many beacon requests the load made. */
  async function read(path: string, userAgent: string, times = 1): Promise<{ beacons: number; cookies: number; scripts: number }> {
    const context = await browser.newContext({ userAgent });
    const tab = await context.newPage();
    let beacons = 0;
    tab.on('request', (request) => {
      if (new URL(request.url()).pathname === '/_folio/view.gif') beacons += 1;
    });
    let scripts = 0;
    for (let i = 0; i < times; i++) {
      const response = await tab.goto(`${origin}${path}`, { waitUntil: 'load' });
      expect(response?.status()).toBe(200);
      // The beacon was loaded, not just requested: the image is complete.
      expect(await tab.evaluate(() => (document.querySelector('img[src^="/_folio/view.gif"]') as HTMLImageElement | null)?.complete)).toBe(true);
      scripts = await tab.evaluate(() => Array.from(document.querySelectorAll('script')).filter((s) => s.type !== 'application/ld+json').length);
    }
    const cookies = (await context.cookies()).length;
    await context.close();
    return { beacons, cookies, scripts };
  }

  it('counts each load once across user agents, sets no cookie, runs no script, and never counts a crawler', async () => {
    const loads = [
      await read('/counted-once', CHROME_UA, 2),
      await read('/counted-once', FIREFOX_UA),
      await read('/counted-once', SAFARI_UA),
      await read('/', CHROME_UA),
    ];
    expect(loads.map((l) => l.beacons)).toEqual([2, 1, 1, 1]);
    for (const load of loads) {
      expect(load.cookies).toBe(0);
      expect(load.scripts).toBe(0);
    }
    // A crawler's browser fetches the beacon too; it is answered, not counted.
    expect((await read('/counted-once', GOOGLEBOT_UA)).beacons).toBe(1);
    await t.folio.analytics.flush();

    const post = (await t.request('GET', '/v1/analytics/posts/counted-once', { blogId })).body;
    expect(post).toMatchObject({ views_30d: 4, visitors_30d: 3 });
    const overview = (await t.request('GET', '/v1/analytics/overview', { blogId })).body;
    expect(overview).toMatchObject({ total_views_30d: 5, visitors_30d: 3 });
    expect(overview.top_posts).toEqual([{ slug: 'counted-once', title: 'Counted once', views: 4 }]);
  });
});
