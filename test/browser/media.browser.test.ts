/**
 * Uploaded images on a published post page, as Chromium loads them: the `<picture>` sources are
 * chosen by the browser from the `srcset` (AVIF, which Chromium takes, at the width the layout
 * needs), the `<img>` keeps the image's size, and lazy images load once scrolled to.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../bench/harness/chromium.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'screenshots');

/** A landscape 2400 × 1600 "photo": a gradient sky, a sun, a hill. */
async function photo(hue: string): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="2400" height="1600"><defs><linearGradient id="s" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${hue}"/><stop offset="1" stop-color="#fdf6e3"/></linearGradient></defs><rect width="2400" height="1600" fill="url(#s)"/><circle cx="1800" cy="420" r="180" fill="#f5c542"/><ellipse cx="900" cy="1700" rx="1600" ry="600" fill="#3d7a3a"/></svg>`;
  return sharp(Buffer.from(svg)).jpeg({ quality: 90 }).toBuffer();
}

describe('uploaded images on a post page in headless Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let origin: string;
  const uploaded: { url: string; id: string }[] = [];

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    t = await startTestApp();
    const blog = (await t.request('POST', '/v1/blogs', { body: { slug: 'photos', name: 'Photo notes' } })).body;
    for (const hue of ['#4a90d9', '#d9704a']) {
      const res = await t.request('POST', '/v1/media', { blogId: blog.id, raw: await photo(hue), headers: { 'content-type': 'image/jpeg' } });
      expect(res.status, res.text).toBe(201);
      uploaded.push(res.body);
    }
    // The page is served here on the test server's port, not the configured :3000 of the
    // absolute URLs: the post names its images by path, as an author may.
    const paths = uploaded.map((m) => new URL(m.url).pathname);
    const filler = Array.from(
      { length: 90 },
      (_, i) =>
        `Paragraph ${i + 1} of text between the two pictures, so that the second one starts far below the first screen (Chromium fetches lazy images up to 2,500 px ahead).`,
    ).join('\n\n');
    const content = `A walk in two pictures.\n\n![A blue morning](${paths[0]})\n\n${filler}\n\n![An orange evening](${paths[1]})\n\nThe end.`;
    const post = await t.request('POST', '/v1/posts', {
      blogId: blog.id,
      body: { title: 'Two pictures', content, status: 'published', meta: { og_image: uploaded[0]!.id } },
    });
    expect(post.status, post.text).toBe(201);
    origin = `http://photos.localhost:${new URL(t.baseUrl).port}`;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  for (const viewport of [
    { name: 'desktop', width: 1280, height: 900, expected: 960, slot: 784 },
    { name: 'phone', width: 360, height: 740, expected: 480, slot: 320 },
  ]) {
    it(`loads the AVIF variant the layout needs at ${viewport.name} width, at the image's size, the second one lazily`, async () => {
      const context = await browser.newContext({ viewport: { width: viewport.width, height: viewport.height } });
      const tab = await context.newPage();
      const requested: string[] = [];
      tab.on('request', (req) => {
        if (req.url().includes('/media/')) requested.push(new URL(req.url()).pathname);
      });
      await tab.goto(`${origin}/two-pictures`, { waitUntil: 'load' });
      const images = () =>
        tab.evaluate(() =>
          Array.from(document.querySelectorAll('article picture img')).map((img) => {
            const el = img as HTMLImageElement;
            return {
              currentSrc: el.currentSrc,
              complete: el.complete,
              naturalWidth: el.naturalWidth,
              width: el.getAttribute('width'),
              height: el.getAttribute('height'),
              loading: el.getAttribute('loading'),
              shown: el.getBoundingClientRect().width,
            };
          }),
        );
      const first = await images();
      expect(first).toHaveLength(2);
      expect(first[0]!.loading).toBeNull();
      expect(first[1]!.loading).toBe('lazy');
      const stems = uploaded.map((m) => new URL(m.url).pathname.replace(/\.jpg$/, ''));
      expect(first[0]!.currentSrc).toMatch(new RegExp(`${stems[0]}-${viewport.expected}\\.avif$`));
      // A srcset image's natural width is its slot from `sizes` (49rem, or the window less its gutters).
      expect(first[0]!.naturalWidth).toBe(viewport.slot);
      await tab.screenshot({ path: join(ARTIFACTS, `media-post-${viewport.name}.png`) });
      // The second picture is below the first screen: nothing of it is fetched yet.
      expect(requested.some((p) => p.startsWith(stems[1]!))).toBe(false);
      await tab.locator('article picture img').nth(1).scrollIntoViewIfNeeded();
      await tab.waitForFunction(() => {
        const img = document.querySelectorAll('article picture img')[1] as HTMLImageElement;
        return img.complete && img.naturalWidth > 0;
      });
      const after = await images();
      expect(after[1]!.currentSrc).toMatch(new RegExp(`${stems[1]}-${viewport.expected}\\.avif$`));
      for (const img of after) {
        expect([img.width, img.height]).toEqual(['2400', '1600']);
        // Drawn within the column, never wider than the window.
        expect(img.shown).toBeLessThanOrEqual(viewport.width);
      }
      // Only AVIF was fetched: no JPEG fallback, no full-size original.
      expect(requested.every((p) => p.endsWith('.avif'))).toBe(true);
      await context.close();
    });
  }
});
