import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../../bench/harness/chromium.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'screenshots');

const ENGLISH = `Folio renders every post into a static page. This one has the things a real post has.

## Code

\`\`\`ts
export function greet(name: string): string {
  return \`Hello, \${name}! This line is deliberately long so that it has to scroll inside its block.\`;
}
\`\`\`

## A table

| Store | Latency | Notes |
|---|---|---|
| folder | 1 ms | the default |
| S3 | 20 ms | production |

> A quote, to check blockquotes.

A very long link: https://example.com/a/very/long/path/that/keeps/going/and/going/without/any/spaces/at/all/until/it/ends

- one
- two with \`inline code\`
`;

const KOREAN = `오늘은 비가 와서 집에서 블로그를 썼다. 서버에서 SQLite를 쓰면 설정이 간단하다.

## 두 번째 문단

정적 사이트는 빠르고 안전하다. 독자는 자바스크립트 없이 글을 읽을 수 있다.`;

const COVER_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 320 180"><defs><linearGradient id="g" x1="0" x2="1"><stop offset="0" stop-color="#0a58a6"/><stop offset="1" stop-color="#7db8ff"/></linearGradient></defs><rect width="320" height="180" fill="url(#g)"/><circle cx="240" cy="60" r="28" fill="#fdfcfa" opacity="0.8"/></svg>`;

describe('a published blog in headless Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let origin: string;
  // Post images live on other hosts; this one serves a cover image on loopback.
  let images: Server;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    images = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/svg+xml' }).end(COVER_SVG));
    await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
    const cover = `http://127.0.0.1:${(images.address() as { port: number }).port}/cover.svg`;
    t = await startTestApp();
    const blog = (await t.request('POST', '/v1/blogs', { body: { slug: 'shots', name: 'Folio Notes', description: 'Notes on building a publishing service' } }))
      .body;
    await t.request('POST', '/v1/posts', {
      blogId: blog.id,
      body: { title: 'Rendering static pages', content: ENGLISH, tags: ['folio', 'rendering'], meta: { og_image: cover }, status: 'published' },
    });
    await t.request('POST', '/v1/posts', { blogId: blog.id, body: { title: '비 오는 날의 블로그', content: KOREAN, tags: ['일상'], status: 'published' } });
    origin = `http://shots.localhost:${new URL(t.baseUrl).port}`;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    images?.close();
  });

  const pages = [
    { name: 'home', path: '/' },
    { name: 'post', path: '/rendering-static-pages' },
    { name: 'korean-post', path: `/${encodeURIComponent('비-오는-날의-블로그')}` },
    { name: 'tags', path: '/tags/' },
    { name: 'archive', path: '/archive/' },
    // With a query in its address: the results as a reader lands on them from a shared link.
    { name: 'search', path: '/search/?q=static' },
  ];
  const viewports = [
    { name: 'desktop', width: 1280, height: 900 },
    { name: 'phone', width: 360, height: 740 },
  ];

  for (const scheme of ['light', 'dark'] as const) {
    for (const viewport of viewports) {
      for (const page of pages) {
        it(`${page.name} in ${scheme} mode at ${viewport.name} width: no console errors, no horizontal scroll`, async () => {
          const context = await browser.newContext({ colorScheme: scheme, viewport: { width: viewport.width, height: viewport.height } });
          const tab = await context.newPage();
          const errors: string[] = [];
          tab.on('console', (msg) => {
            if (msg.type() === 'error') errors.push(msg.text());
          });
          tab.on('pageerror', (err) => errors.push(err.message));
          const response = await tab.goto(`${origin}${page.path}`, { waitUntil: 'load' });
          expect(response?.status()).toBe(200);
          // The search page answers its ?q= in the browser: shoot it with its results.
          if (page.name === 'search')
            await tab.waitForFunction(
              () => !document.getElementById('search-results')!.hasAttribute('aria-busy') && document.querySelectorAll('.search-result').length > 0,
            );
          const layout = await tab.evaluate(() => ({
            scrollWidth: document.documentElement.scrollWidth,
            clientWidth: document.documentElement.clientWidth,
            background: getComputedStyle(document.body).backgroundColor,
            scripts: Array.from(document.querySelectorAll('script')).filter((s) => s.type !== 'application/ld+json').length,
            lang: document.documentElement.lang,
            title: document.title,
            // Where the footer ends and the page ends: on a page shorter than the window the
            // footer must sit at the bottom, not float mid-screen.
            footerBottom: document.querySelector('.site-footer')!.getBoundingClientRect().bottom + window.scrollY,
            pageHeight: Math.max(document.documentElement.scrollHeight, window.innerHeight),
          }));
          await tab.screenshot({ path: join(ARTIFACTS, `${page.name}-${scheme}-${viewport.name}.png`), fullPage: true });
          await context.close();
          expect(errors).toEqual([]);
          expect(layout.scrollWidth).toBeLessThanOrEqual(layout.clientWidth);
          // No JavaScript on reading pages; the search page loads its one script.
          expect(layout.scripts).toBe(page.name === 'search' ? 1 : 0);
          expect(layout.title.length).toBeGreaterThan(0);
          expect(Math.abs(layout.pageHeight - layout.footerBottom)).toBeLessThanOrEqual(1);
          expect(layout.lang).toBe(page.name === 'korean-post' ? 'ko' : 'en');
          // Dark mode follows prefers-color-scheme: a dark page background, a light one otherwise.
          const [r, g, b] = (layout.background.match(/\d+/g) ?? ['255', '255', '255']).map(Number);
          const luminance = (0.2126 * r! + 0.7152 * g! + 0.0722 * b!) / 255;
          if (scheme === 'dark') expect(luminance).toBeLessThan(0.3);
          else expect(luminance).toBeGreaterThan(0.7);
        });
      }
    }
  }
});
