/**
 * The reader's site in headless Chromium (issue 11): search typed into /search/ (English,
 * Korean with particles, mixed), answered in the browser from the static index files; the page
 * without JavaScript; the navigation walked by keyboard; and axe-core on every page type.
 */
import { AxeBuilder } from '@axe-core/playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../../bench/harness/chromium.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const POSTS = [
  { title: 'Caching static sites at the edge', slug: 'edge-caching', content: 'A CDN keeps pages close to readers. Purge on publish.', tags: ['caching'] },
  { title: '블로그를 시작하며', slug: 'start', content: '정적 사이트로 블로그를 만들었습니다. SQLite에서 글을 읽습니다.', tags: ['블로그'] },
  { title: '비빔밥 만들기', slug: 'bibimbap', content: '비가 오는 날에는 비빔밥을 먹습니다.', tags: ['요리'] },
  { title: '비 오는 날', slug: 'rain', content: '비가 옵니다. 서버를 점검했습니다.', tags: ['일상'] },
  { title: 'SQLite 서버 없이 쓰기', slug: 'sqlite', content: 'SQLite는 서버가 필요 없습니다. The database is a file.', tags: ['sqlite', '블로그'] },
];

describe('search, keyboard and accessibility in headless Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let origin: string;
  let blogId: string;

  beforeAll(async () => {
    t = await startTestApp();
    const blog = (await t.request('POST', '/v1/blogs', { body: { slug: 'reader', name: 'Reader Notes', description: 'A blog to read and search' } })).body;
    blogId = blog.id;
    for (const post of POSTS) await t.request('POST', '/v1/posts', { blogId: blog.id, body: { ...post, status: 'published' } });
    // Enough posts about one word for a second page of results.
    for (let i = 1; i <= 14; i++) {
      await t.request('POST', '/v1/posts', {
        blogId: blog.id,
        body: { title: `Lantern note ${i}`, slug: `lantern-${i}`, content: `Lanterns, part ${i}.`, status: 'published' },
      });
    }
    await t.folio.idle();
    origin = `http://reader.localhost:${new URL(t.baseUrl).port}`;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function openPage(
    path: string,
    options: { javaScriptEnabled?: boolean; holdSearchAsYouType?: boolean } = {},
  ): Promise<{ page: Page; errors: string[]; close: () => Promise<void> }> {
    const { holdSearchAsYouType, ...contextOptions } = options;
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...contextOptions });
    const page = await context.newPage();
    if (holdSearchAsYouType) {
      await page.addInitScript(() => {
        const setTimer = window.setTimeout;
        // Only the search page's 120 ms search-as-you-type timer is held; every other timer runs.
        window.setTimeout = ((handler: TimerHandler, ms?: number, ...args: unknown[]) =>
          setTimer(handler, ms === 120 ? 2_147_483_647 : ms, ...args)) as typeof window.setTimeout;
      });
    }
    const errors: string[] = [];
    page.on('console', (msg) => {
      if (msg.type() === 'error') errors.push(msg.text());
    });
    page.on('pageerror', (err) => errors.push(err.message));
    const response = await page.goto(`${origin}${path}`, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);
    return { page, errors, close: () => context.close() };
  }

  /** Types the query as a reader does and returns the status line and result titles once they settle. */
  async function typeQuery(page: Page, q: string): Promise<{ status: string; titles: string[] }> {
    await page.fill('#search-q', '');
    await page.type('#search-q', q, { delay: 10 });
    await page.waitForFunction(
      (query) => {
        const status = document.getElementById('search-status')!.textContent ?? '';
        const settled = !document.getElementById('search-results')!.hasAttribute('aria-busy');
        return new URL(location.href).searchParams.get('q') === query && settled && status !== '';
      },
      q,
      { timeout: 10_000 },
    );
    return page.evaluate(() => ({
      status: document.getElementById('search-status')!.textContent ?? '',
      titles: Array.from(document.querySelectorAll('.search-result .post-item-title a')).map((a) => a.textContent ?? ''),
    }));
  }

  it('answers English, Korean with particles and mixed queries as the API would, with every word required', async () => {
    const { page, errors, close } = await openPage('/search/');
    expect(await typeQuery(page, 'purge cdn')).toEqual({ status: '1 post found.', titles: ['Caching static sites at the edge'] });
    // 블로그를 asks for 블로그: both posts that say it, whatever particle they use.
    expect((await typeQuery(page, '블로그를')).titles.sort()).toEqual(['SQLite 서버 없이 쓰기', '블로그를 시작하며'].sort());
    // 비 finds 비가 / 비 but never 비빔밥's own word.
    const rain = await typeQuery(page, '비');
    expect(rain.titles.sort()).toEqual(['비 오는 날', '비빔밥 만들기'].sort());
    expect((await typeQuery(page, '비빔밥')).titles).toEqual(['비빔밥 만들기']);
    // Mixed scripts, and SQLite에서 found by sqlite: the particle glued to a Latin word is dropped.
    expect((await typeQuery(page, 'sqlite 서버')).titles).toEqual(['SQLite 서버 없이 쓰기']);
    expect((await typeQuery(page, 'sqlite 블로그')).titles.sort()).toEqual(['SQLite 서버 없이 쓰기', '블로그를 시작하며'].sort());
    expect(await typeQuery(page, 'purge 비빔밥')).toEqual({ status: 'No posts match “purge 비빔밥”.', titles: [] });
    // Each result links to its post and shows its date and tags.
    await typeQuery(page, 'edge');
    const first = await page.evaluate(() => {
      const item = document.querySelector('.search-result')!;
      return {
        href: item.querySelector('a')!.getAttribute('href'),
        meta: item.querySelector('.post-item-meta')!.textContent,
        time: item.querySelector('time')!.getAttribute('datetime'),
      };
    });
    expect(first.href).toBe('/edge-caching');
    expect(first.meta).toContain('caching');
    expect(first.time).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    // The same posts as GET /v1/search, query by query.
    for (const q of ['purge cdn', '블로그를', '비', '비가', '서버', 'sqlite 서버', 'sqlite에서', 'lanterns part', 'the database', 'purge 비빔밥']) {
      const api = await t.request('GET', `/v1/search?q=${encodeURIComponent(q)}&per_page=50`, { blogId });
      expect(api.status).toBe(200);
      const fromApi = (api.body.data as { title: string }[]).map((hit) => hit.title).sort();
      await typeQuery(page, q);
      await page.evaluate(async () => {
        while (!document.getElementById('search-more')!.hidden) {
          document.getElementById('search-more')!.click();
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      });
      expect((await page.$$eval('.search-result .post-item-title a', (links) => links.map((a) => a.textContent ?? ''))).sort(), q).toEqual(fromApi);
    }
    expect(errors).toEqual([]);
    await close();
  });

  it('marks the words of each title and summary that the query matched, found as the index finds them', async () => {
    const { page, errors, close } = await openPage('/search/');
    const marks = async (q: string) => {
      await typeQuery(page, q);
      const cards = await page.$$eval('.search-result', (items) =>
        items.map((item) => ({
          title: item.querySelector('.post-item-title a')!.textContent,
          title_marks: Array.from(item.querySelectorAll('.post-item-title mark')).map((m) => m.textContent),
          summary_marks: Array.from(item.querySelectorAll('.post-item-summary mark')).map((m) => m.textContent),
        })),
      );
      return cards.sort((a, b) => (a.title! < b.title! ? -1 : 1));
    };
    expect(await marks('purge cdn')).toEqual([{ title: 'Caching static sites at the edge', title_marks: [], summary_marks: ['CDN', 'Purge'] }]);
    // 블로그 marks 블로그를, whose particle the index drops too; a post found by its tag alone has no mark.
    expect(await marks('블로그')).toEqual([
      { title: 'SQLite 서버 없이 쓰기', title_marks: [], summary_marks: [] },
      { title: '블로그를 시작하며', title_marks: ['블로그를'], summary_marks: ['블로그를'] },
    ]);
    // 비 marks 비가 and 비, never 비빔밥.
    expect(await marks('비')).toEqual([
      { title: '비 오는 날', title_marks: ['비'], summary_marks: ['비가'] },
      { title: '비빔밥 만들기', title_marks: [], summary_marks: ['비가'] },
    ]);
    // The link still reads as the whole title (its accessible name), marks and all.
    expect(await page.$$eval('.search-result .post-item-title a', (links) => links.map((a) => a.textContent).sort())).toEqual(['비 오는 날', '비빔밥 만들기']);
    expect(errors).toEqual([]);
    await close();
  });

  it('reads ?q= from the address, shows ten results, and the rest on request', async () => {
    const { page, errors, close } = await openPage('/search/?q=lanterns');
    // Cards appear one by one as their fragments arrive; the list is settled when it is no longer busy.
    await page.waitForFunction(
      () => !document.getElementById('search-results')!.hasAttribute('aria-busy') && document.querySelectorAll('.search-result').length > 0,
    );
    expect(await page.inputValue('#search-q')).toBe('lanterns');
    expect(await page.textContent('#search-status')).toBe('14 posts found.');
    expect(await page.locator('.search-result').count()).toBe(10);
    await page.click('#search-more');
    await page.waitForFunction(() => document.querySelectorAll('.search-result').length === 14);
    expect(await page.isHidden('#search-more')).toBe(true);
    expect(errors).toEqual([]);
    await close();
  });

  it("fetches a finished word's index chunks while the next word is typed, and nothing for an unfinished one", async () => {
    // A reader who never pauses: the page's search-as-you-type timer (120 ms after the last key)
    // is held back, so until Enter every chunk fetched is a prefetch, however slowly a loaded
    // machine delivers the keys.
    const { page, errors, close } = await openPage('/search/', { holdSearchAsYouType: true });
    await page.waitForLoadState('networkidle');
    const chunks: string[] = [];
    page.on('request', (req) => {
      if (/\/search\/(t|x)\/\d+\.json$/.test(new URL(req.url()).pathname)) chunks.push(new URL(req.url()).pathname);
    });
    await page.type('#search-q', 'lant', { delay: 60 });
    await page.waitForTimeout(300);
    expect(chunks).toEqual([]);
    await page.type('#search-q', 'erns nothing', { delay: 60 });
    // 'lanterns' is finished; no search has run yet.
    await expect.poll(() => chunks.length, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(await page.textContent('#search-status')).toBe('');
    await page.press('#search-q', 'Enter');
    await page.waitForFunction(
      () => !document.getElementById('search-results')!.hasAttribute('aria-busy') && document.getElementById('search-status')!.textContent !== '',
    );
    // The query still finds what it should; the finished word's chunk was not fetched twice.
    expect(new Set(chunks).size).toBe(chunks.length);
    expect(errors).toEqual([]);
    await close();
  });

  it('ranks as GET /v1/search does, score for score: the newest posts, still in the delta, in their place', async () => {
    // A blog whose older posts are laid out in the term chunks (a reindex) and whose newest ones
    // are still in the delta: short posts that say 비 once rank above long ones that say it
    // more often, as BM25 with length normalisation has it (issue 27, A5).
    const ranks = (await t.request('POST', '/v1/blogs', { body: { slug: 'ranks', name: 'Ranks' } })).body;
    const filler = (n: number) => Array.from({ length: n }, (_, i) => ['오늘은', '서버를', '정적', '사이트', 'notes'][i % 5]).join(' ');
    for (let i = 1; i <= 14; i++) {
      const content = `${'비가 옵니다. '.repeat(1 + (i % 4))}${i % 3 === 0 ? '새로 시작했습니다. ' : ''}${filler(20 + i * 15)}`;
      await t.request('POST', '/v1/posts', { blogId: ranks.id, body: { title: `오래된 글 ${i}`, slug: `old-${i}`, content, status: 'published' } });
    }
    await t.folio.idle();
    await t.folio.publisher.reindex((await t.folio.repos.blogs.findById(ranks.id))!);
    for (let i = 1; i <= 4; i++) {
      await t.request('POST', '/v1/posts', {
        blogId: ranks.id,
        body: { title: `새 글 ${i}`, slug: `new-${i}`, content: `비 ${i % 2 ? '시작' : ''} ${filler(i)}`, status: 'published' },
      });
    }
    await t.folio.idle();
    const meta = JSON.parse((await t.folio.store.get('ranks/search/meta.json'))!.body.toString()) as { delta: number };
    expect(meta.delta).toBeGreaterThan(0);

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    await page.goto(`http://ranks.localhost:${new URL(t.baseUrl).port}/search/`, { waitUntil: 'load' });
    for (const q of ['비', '시작', '비 시작', '서버']) {
      const api = await t.request('GET', `/v1/search?q=${encodeURIComponent(q)}&per_page=50`, { blogId: ranks.id });
      expect(api.status).toBe(200);
      const fromApi = (api.body.data as { title: string }[]).map((hit) => hit.title);
      expect(fromApi.length, q).toBeGreaterThan(2);
      // The first page as it is painted, then every further page in turn.
      expect((await typeQuery(page, q)).titles, q).toEqual(fromApi.slice(0, 10));
      while (!(await page.isHidden('#search-more'))) {
        const shown = await page.locator('.search-result').count();
        await page.click('#search-more');
        await page.waitForFunction((n) => document.querySelectorAll('.search-result').length > n && !document.querySelector('.search-result-pending'), shown);
      }
      expect(await page.$$eval('.search-result .post-item-title a', (links) => links.map((a) => a.textContent ?? '')), q).toEqual(fromApi);
    }
    expect(errors).toEqual([]);
    await context.close();
  });

  it('keeps the form on one row on a phone, the button label whole', async () => {
    const context = await browser.newContext({ viewport: { width: 360, height: 740 } });
    const page = await context.newPage();
    await page.goto(`${origin}/search/`, { waitUntil: 'load' });
    const box = await page.evaluate(() => {
      const button = document.querySelector('.search-button')!.getBoundingClientRect();
      const input = document.querySelector('.search-input')!.getBoundingClientRect();
      return {
        buttonHeight: button.height,
        inputHeight: input.height,
        sameRow: Math.abs(button.top - input.top) < 1,
        scroll: document.documentElement.scrollWidth,
      };
    });
    await context.close();
    expect(box.sameRow).toBe(true);
    expect(box.buttonHeight).toBeLessThanOrEqual(box.inputHeight + 1);
    expect(box.scroll).toBeLessThanOrEqual(360);
  });

  it('says what to do instead when JavaScript is off', async () => {
    const { page, close } = await openPage('/search/', { javaScriptEnabled: false });
    const text = await page.textContent('.search-noscript');
    expect(text).toContain('needs JavaScript');
    expect(await page.getAttribute('.search-noscript a[href="/tags/"]', 'href')).toBe('/tags/');
    expect(await page.getAttribute('.search-noscript a[href="/archive/"]', 'href')).toBe('/archive/');
    await close();
  });

  it('walks the navigation by keyboard: skip link, home, Tags, Archive, Search, RSS, then the content', async () => {
    const { page, close } = await openPage('/edge-caching');
    const focused: string[] = [];
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press('Tab');
      focused.push(await page.evaluate(() => `${document.activeElement!.textContent!.trim()} ${document.activeElement!.getAttribute('href')}`));
    }
    expect(focused).toEqual(['Skip to content #main', 'Reader Notes /', 'Tags /tags/', 'Archive /archive/', 'Search /search/', 'RSS /rss.xml']);
    // The skip link moves focus to the content.
    await page.reload();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement!.id)).toBe('main');
    await close();
    const search = await openPage('/search/');
    for (let i = 0; i < 7; i++) await search.page.keyboard.press('Tab');
    expect(await search.page.evaluate(() => document.activeElement!.id)).toBe('search-q');
    await search.close();
  });

  const pageTypes = [
    { name: 'home', path: '/' },
    { name: 'post', path: '/edge-caching' },
    { name: 'Korean post', path: '/bibimbap' },
    { name: 'tag', path: '/tags/caching' },
    { name: 'tag index', path: '/tags/' },
    { name: 'archive', path: '/page/1' },
    { name: 'archive index', path: '/archive/' },
    { name: 'search with results', path: '/search/?q=lanterns' },
  ];
  for (const scheme of ['light', 'dark'] as const) {
    for (const type of pageTypes) {
      it(`axe-core finds no serious or critical violation on the ${type.name} page (${scheme})`, async () => {
        const context = await browser.newContext({ colorScheme: scheme, viewport: { width: 1280, height: 900 } });
        const page = await context.newPage();
        await page.goto(`${origin}${type.path}`, { waitUntil: 'load' });
        if (type.name.startsWith('search'))
          await page.waitForFunction(
            () => !document.getElementById('search-results')!.hasAttribute('aria-busy') && document.querySelectorAll('.search-result').length > 0,
          );
        const results = await new AxeBuilder({ page }).analyze();
        await context.close();
        const serious = results.violations
          .filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
        expect(serious).toEqual([]);
        expect(results.passes.length).toBeGreaterThan(10);
      });
    }
  }
});
