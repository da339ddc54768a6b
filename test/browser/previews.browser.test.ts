import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../../bench/harness/chromium.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

/**
 * A preview link in real Chromium (docs/dashboard.md#preview-links-and-live-preview): opened in a
 * fresh context (no cookies, no session), the draft shows with the theme's stylesheet and the
 * owner's custom CSS applied, though the blog was never published; no script runs — neither one
 * in the post (the sanitiser) nor the owner's header and ad HTML, which the theme prints raw
 * (the page's CSP) — and no view beacon is requested.
 */
describe('a preview link opened by someone without a session', () => {
  let t: TestApp;
  let browser: Browser;
  let url: string;

  beforeAll(async () => {
    t = await startTestApp();
    const blog = await t.request('POST', '/v1/blogs', { body: { slug: 'unpublished', name: 'Never Published' } });
    const blogId = blog.body.id;
    const themed = await t.request('PUT', `/v1/blogs/${blogId}`, {
      body: {
        theme_config: {
          headerHtml: '<script>window.ownerRan = true</script><div id="owner-header">Owner header</div>',
          adCode: '<img src="/nothing.png" onerror="window.adRan = true" alt="">',
          customCss: '.post-title { letter-spacing: 3px; }',
        },
      },
    });
    expect(themed.status, themed.text).toBe(200);
    const content = '## 미리보기\n\nA **draft** nobody has published.\n\n<script>window.postRan = true</script><img src="x" onerror="window.postRan = true">';
    const post = await t.request('POST', '/v1/posts', { blogId, body: { title: '아직 초안', content } });
    expect(post.status, post.text).toBe(201);
    const link = await t.request('POST', `/v1/posts/${post.body.slug}/preview-link`, { blogId, body: { expires_in: 3600 } });
    expect(link.status, link.text).toBe(201);
    url = `${t.baseUrl}${new URL(link.body.url).pathname}`;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('shows the draft with the theme applied, runs no script and sends no beacon', async () => {
    const context = await browser.newContext();
    expect(await context.cookies()).toEqual([]);
    const tab = await context.newPage();
    const requested: string[] = [];
    tab.on('request', (request) => void requested.push(new URL(request.url()).pathname));
    const response = await tab.goto(url, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);

    expect(await tab.locator('h1.post-title').textContent()).toBe('아직 초안');
    expect(await tab.locator('.post-content strong').textContent()).toBe('draft');
    // The theme's stylesheet loaded from the API host: the skip link is moved off screen, the
    // page's background is the theme's; the owner's custom CSS applied too.
    const styles = await tab.evaluate(() => ({
      skipLink: getComputedStyle(document.querySelector('.skip-link')!).position,
      background: getComputedStyle(document.body).backgroundColor,
      title: getComputedStyle(document.querySelector('.post-title')!).letterSpacing,
    }));
    expect(styles.skipLink).toBe('absolute');
    expect(styles.background).not.toBe('rgba(0, 0, 0, 0)');
    expect(styles.title).toBe('3px');
    expect(requested.some((path) => /^\/preview\/assets\/site\.[0-9a-f]{8}\.css$/.test(path))).toBe(true);

    // The owner's header HTML is there, its script did not run; nor did the post's or the ad's.
    expect(await tab.locator('#owner-header').textContent()).toBe('Owner header');
    const ran = await tab.evaluate(() => {
      const w = window as unknown as Record<string, unknown>;
      return { owner: w.ownerRan ?? false, ad: w.adRan ?? false, post: w.postRan ?? false };
    });
    expect(ran).toEqual({ owner: false, ad: false, post: false });
    // A sandboxed document: an opaque origin, so nothing could reach the API origin's cookies.
    expect(await tab.evaluate(() => window.origin)).toBe('null');

    expect(requested.filter((path) => path.startsWith('/_folio/'))).toEqual([]);
    expect(await context.cookies()).toEqual([]);
    await context.close();
  });
});
