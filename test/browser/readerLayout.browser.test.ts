/**
 * Layout of the reader's pages as Chromium lays them out: the contents box nests sections and
 * folds on phones, table columns keep their Markdown alignment, Korean titles stay tight, and
 * the inline lists of /tags/ and /archive/ and the month pages' rows line up.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../../bench/harness/chromium.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const KOREAN_GUIDE = `첫 문단입니다.

## 첫째 장

본문.

### 첫째 절

본문.

### 둘째 절

본문.

## 둘째 장

| 왼쪽 | 가운데 | 오른쪽 |
|:--|:-:|--:|
| 가 | 나 | 다 |

## 셋째 장

끝.`;

const LONG_TITLE = '한국어 제목이 꽤 길어서 좁은 화면에서는 두 줄로 넘어가는 글 하나의 이야기입니다';

describe('reader page layout in headless Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let origin: string;

  beforeAll(async () => {
    t = await startTestApp();
    const blog = (await t.request('POST', '/v1/blogs', { body: { slug: 'layout', name: '배치', description: '한국어 블로그' } })).body;
    await t.request('POST', '/v1/posts', {
      blogId: blog.id,
      body: { title: LONG_TITLE, slug: 'guide', content: KOREAN_GUIDE, tags: ['안내', '한국어'], status: 'published' },
    });
    for (const n of [1, 2, 3]) {
      await t.request('POST', '/v1/posts', {
        blogId: blog.id,
        body: { title: `짧은 글 ${n}`, content: '본문입니다.', tags: [`태그${n}`], status: 'published' },
      });
    }
    origin = `http://layout.localhost:${new URL(t.baseUrl).port}`;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function open(path: string, width: number): Promise<Page> {
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    const answer = await page.goto(origin + path);
    expect(answer?.status()).toBe(200);
    return page;
  }

  it('nests h3 entries under their h2 in the contents box, numbered 1, 2, 3', async () => {
    const page = await open('/guide', 1280);
    const outline = await page.$$eval('.toc ol > li', (items) =>
      items
        .filter((li) => li.parentElement?.parentElement?.tagName !== 'LI')
        .map((li) => ({
          text: li.querySelector(':scope > a')?.textContent,
          children: Array.from(li.querySelectorAll(':scope > ol > li > a'), (a) => a.textContent),
        })),
    );
    expect(outline).toEqual([
      { text: '첫째 장', children: ['첫째 절', '둘째 절'] },
      { text: '둘째 장', children: [] },
      { text: '셋째 장', children: [] },
    ]);
    // Shown on a wide screen without a click.
    expect(await page.isVisible('.toc a[href="#%EB%91%98%EC%A7%B8-%EC%9E%A5"]')).toBe(true);
    await page.close();
  });

  it('folds the contents box on a phone until the reader opens it', async () => {
    const page = await open('/guide', 360);
    expect(await page.isVisible('.toc summary')).toBe(true);
    expect(await page.isVisible('.toc a[href^="#"]')).toBe(false);
    await page.click('.toc summary');
    expect(await page.isVisible('.toc a[href^="#"]')).toBe(true);
    await page.close();
  });

  it('keeps Markdown column alignment', async () => {
    const page = await open('/guide', 1280);
    const aligns = await page.$$eval('.post-content tbody td', (cells) => cells.map((c) => getComputedStyle(c).textAlign));
    expect(aligns).toEqual(['left', 'center', 'right']);
    await page.close();
  });

  it('sets Korean titles tighter than running text', async () => {
    const page = await open('/guide', 360);
    const ratio = await page.$eval('h1.post-title', (h) => parseFloat(getComputedStyle(h).lineHeight) / parseFloat(getComputedStyle(h).fontSize));
    const body = await page.$eval('.post-content p', (p) => parseFloat(getComputedStyle(p).lineHeight) / parseFloat(getComputedStyle(p).fontSize));
    expect(ratio).toBeLessThanOrEqual(1.45);
    expect(body).toBeGreaterThanOrEqual(1.7);
    await page.close();
  });

  for (const path of ['/tags/', '/archive/']) {
    it(`lines up every item of the first row of ${path}`, async () => {
      const page = await open(path, 1280);
      const tops = await page.$$eval('main ul li', (items) => items.map((li) => Math.round(li.getBoundingClientRect().top)));
      expect(tops.length).toBeGreaterThan(0);
      const firstRow = tops.filter((top) => Math.abs(top - tops[0]!) < 10);
      expect(new Set(firstRow).size).toBe(1);
      await page.close();
    });
  }

  it('puts each date on the baseline of its title on a month page', async () => {
    const archive = await open('/archive/', 1280);
    const month = await archive.$eval('.archive-months a', (a) => a.getAttribute('href')!);
    await archive.close();
    const page = await open(month, 1280);
    const offsets = await page.$$eval('.post-list-compact li', (rows) =>
      rows.map((row) => {
        // The baseline of an element's first line: where an empty inline-block put first in it sits.
        const baseline = (el: Element) => {
          const probe = document.createElement('span');
          probe.style.display = 'inline-block';
          el.prepend(probe);
          const y = probe.getBoundingClientRect().bottom;
          probe.remove();
          return y;
        };
        return Math.abs(baseline(row.querySelector('time')!) - baseline(row.querySelector('a')!));
      }),
    );
    expect(offsets.length).toBe(4);
    for (const offset of offsets) expect(offset).toBeLessThanOrEqual(1);
    await page.close();
  });
});
