/**
 * Static search figures (issue 11, item 3) on the generated corpus: the index the /search/
 * page reads, built into a folder store.
 *
 * - full build time, index size (files, bytes, gzip), chunk count;
 * - bytes a reader transfers (gzip, as the site server sends them): for a first query (page,
 *   script, meta.json, the query's chunks, the fragments of the first ten results) and for a
 *   further query (what the previous query did not load), median and p95 over 200 queries;
 * - publish cost: one post's upsert (new and edited posts), chunks rewritten;
 * - in headless Chromium with 4× CPU throttling: a reader types a query and presses Enter; the time
 *   from Enter to the first and the tenth card painted, on freshly opened pages (new profile,
 *   nothing cached) and for further queries on the same page.
 *
 * The anchor is Pagefind's published figure (under 300 KB in all for a query on a 10,000-page
 * site); Pagefind itself is not run here.
 */
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { launchChromium } from './harness/chromium.js';
import { percentile } from './harness/stats.js';
import { templatesDir } from '../src/lib/paths.js';
import { siteAssets } from '../src/publish/render/assets.js';
import { createRenderContext } from '../src/publish/render/renderContext.js';
import { renderSearchPage } from '../src/publish/render/renderSearchPage.js';
import { loadTheme } from '../src/publish/render/renderTheme.js';
import { DELTA_MAX_BIG, deltaMax, FRAGMENT_SIZE, metaKey, type ChunkFile, type FragmentEntry, type StaticMeta } from '../src/search/static/staticFormat.js';
import { chunkPathsOf, livePostings, RankedMatches, scoreMatches, type LengthFile } from '../src/search/static/staticQuery.js';
import { StaticIndexWriter } from '../src/search/static/staticIndexWriter.js';
import { queryTerms } from '../src/search/tokenize.js';
import { FsSiteStore } from '../src/storage/fsSiteStore.js';
import { generateQueries, loadCorpus } from './searchBench.js';
import type { BenchRow } from './table.js';

const BLOG = 'bench';
const QUERIES = 200;
const BROWSER_QUERIES = 25;
/** Queries typed into a freshly opened page, each in a new browser profile. */
const COLD_QUERIES = 5;
/** More than DELTA_MAX_BIG, so at least one of them merges the delta into the term chunks whatever the size. */
const UPSERTS = DELTA_MAX_BIG + 16;
const PAGE_SIZE = 10;

const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;

/** Gzip size of every stored object, read once. */
class WireSizes {
  private readonly sizes = new Map<string, number>();
  constructor(private readonly store: FsSiteStore) {}
  async of(key: string): Promise<number> {
    let size = this.sizes.get(key);
    if (size === undefined) {
      const object = await this.store.get(key);
      size = object ? gzipSync(object.body).length : 0;
      this.sizes.set(key, size);
    }
    return size;
  }
}

/**
 * The index files a query loads, as the page's own query code (staticQuery.ts) asks for them:
 * meta.json, its term and delta chunks, the lengths files of its matches, the fragments of its
 * first page of results and of the posts whose equal scores they order.
 */
async function filesOf(store: FsSiteStore, meta: StaticMeta, q: string): Promise<string[]> {
  const loaded = new Set<string>([metaKey(BLOG)]);
  const read = async (path: string): Promise<unknown> => {
    loaded.add(`${BLOG}/search/${path}`);
    const object = await store.get(`${BLOG}/search/${path}`);
    return object ? (JSON.parse(object.body.toString()) as unknown) : null;
  };
  const dead = new Set(meta.dead);
  const lists = await Promise.all(
    queryTerms(q).map(async (term) => livePostings((await Promise.all(chunkPathsOf(meta, term).map(read))) as (ChunkFile | null)[], term, dead)),
  );
  const entryOf = async (ordinal: number): Promise<FragmentEntry | undefined> =>
    ((await read(`d/${Math.floor(ordinal / FRAGMENT_SIZE)}.json`)) as Record<string, FragmentEntry> | null)?.[ordinal];
  const lengthsOf = (path: string) => read(path) as Promise<LengthFile | null>;
  for (const ordinal of await new RankedMatches(await scoreMatches(meta, lists, lengthsOf), entryOf).slice(0, PAGE_SIZE)) await entryOf(ordinal);
  return [...loaded];
}

/** Serves the blog's objects as the site server does (gzip when asked), for Chromium. */
function serve(store: FsSiteStore): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    void (async () => {
      let key = `${BLOG}${decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)}`;
      if (key.endsWith('/')) key += 'index.html';
      const object = await store.get(key);
      if (!object) {
        res.writeHead(404).end();
        return;
      }
      const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
      const body = gzip ? gzipSync(object.body) : object.body;
      res.writeHead(200, { 'content-type': object.contentType, ...(gzip ? { 'content-encoding': 'gzip' } : {}) }).end(body);
    })();
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, origin: `http://127.0.0.1:${(server.address() as { port: number }).port}` })),
  );
}

interface QueryTime {
  /** Enter pressed → the first result card painted (or the no-result line). */
  first: number;
  /** Enter pressed → the page of ten painted. */
  all: number;
}

/**
 * Types `query` into the search box as a reader does (a key every 60 ms, then Enter) and times
 * Enter → cards painted. The clock starts at the Enter keydown inside the page; card arrivals are
 * seen by a MutationObserver and counted at the next animation frame (when they are painted).
 */
async function typeAndTime(page: Page, query: string): Promise<QueryTime> {
  const input = page.locator('#search-q');
  await input.click();
  await input.fill('');
  await page.keyboard.type(query, { delay: 60 });
  // The watcher is installed (and this evaluate returns) before Enter is pressed.
  await page.evaluate(() => {
    const list = document.getElementById('search-results')!;
    const input = document.getElementById('search-q')!;
    const win = window as unknown as { folioTiming?: Promise<QueryTime> };
    win.folioTiming = new Promise<QueryTime>((resolve, reject) => {
      let started = 0;
      const painted = (): Promise<number> => new Promise((done) => requestAnimationFrame(() => done(performance.now() - started)));
      const previous = new Set(Array.from(list.children));
      let busySeen = false;
      let firstPainted: Promise<number> | undefined;
      const giveUp = setTimeout(() => reject(new Error('no results within 20 s')), 20_000);
      const observer = new MutationObserver(() => {
        if (!started) return;
        const busy = list.hasAttribute('aria-busy');
        busySeen ||= busy;
        const done = busySeen && !busy;
        const fresh = Array.from(list.querySelectorAll('.search-result')).some((card) => !previous.has(card));
        if (!firstPainted && (fresh || done)) firstPainted = painted();
        if (done) {
          observer.disconnect();
          clearTimeout(giveUp);
          void Promise.all([firstPainted!, painted()]).then(([first, all]) => resolve({ first, all }));
        }
      });
      observer.observe(list, { attributes: true, attributeFilter: ['aria-busy'], childList: true, subtree: true });
      input.addEventListener(
        'keydown',
        (event) => {
          if (event.key === 'Enter' && !started) started = (window as unknown as { folioEnter: number }).folioEnter = performance.now();
        },
        { capture: true, once: true },
      );
    });
  });
  await page.keyboard.press('Enter');
  return page.evaluate(() => (window as unknown as { folioTiming: Promise<QueryTime> }).folioTiming);
}

/** FOLIO_BENCH_DEBUG: what the page fetched, as [name, start, end] in ms after Enter, and bytes. */
function resourceTimes(page: Page): Promise<unknown[]> {
  return page.evaluate(() => {
    const enter = (window as unknown as { folioEnter?: number }).folioEnter ?? 0;
    return performance
      .getEntriesByType('resource')
      .map((e) => [
        e.name.replace(/^.*\/search\//, ''),
        Math.round(e.startTime - enter),
        Math.round((e as PerformanceResourceTiming).responseEnd - enter),
        (e as PerformanceResourceTiming).transferSize,
      ]);
  });
}

/**
 * Cold: a fresh browser profile each time (nothing cached), the page loaded on the throttled CPU,
 * the first query typed as soon as the page has loaded. Warm: further queries on the last page.
 */
async function browserTimes(store: FsSiteStore, queries: readonly string[]): Promise<{ cold: QueryTime[]; warm: QueryTime[] }> {
  const { server, origin } = await serve(store);
  const browser = await launchChromium();
  try {
    const cold: QueryTime[] = [];
    const warm: QueryTime[] = [];
    let page: Page | undefined;
    for (const [i, q] of queries.entries()) {
      if (i < COLD_QUERIES) {
        await page?.context().close();
        const context = await browser.newContext();
        page = await context.newPage();
        const cdp = await context.newCDPSession(page);
        await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
        await page.goto(`${origin}/search/`, { waitUntil: 'load' });
        cold.push(await typeAndTime(page, q));
        if (process.env.FOLIO_BENCH_DEBUG) console.error(q, JSON.stringify(cold.at(-1)), JSON.stringify(await resourceTimes(page)));
      } else {
        warm.push(await typeAndTime(page!, q));
      }
    }
    if (process.env.FOLIO_BENCH_DEBUG) console.error(JSON.stringify(await resourceTimes(page!)));
    return { cold, warm };
  } finally {
    await browser.close();
    server.close();
  }
}

export async function runStaticSearchBench(opts: { posts: number; corpusDir: string }): Promise<BenchRow[]> {
  const area = `static search (${opts.posts.toLocaleString('en-US')} posts)`;
  const rows: BenchRow[] = [];
  const root = mkdtempSync(join(tmpdir(), 'folio-static-search-bench-'));
  try {
    const docs = loadCorpus(opts.corpusDir, opts.posts);
    const store = new FsSiteStore({ root });
    const writer = new StaticIndexWriter(store, { cacheControl: 'public, max-age=60' });
    let started = performance.now();
    await writer.rebuild(BLOG, docs.slice(0, -UPSERTS));
    rows.push({ area, measure: 'full build of the static index (in process)', value: `${((performance.now() - started) / 1000).toFixed(1)} s` });

    // Publishing: new posts, then edits of older ones, one at a time as publish jobs do.
    const upserts: number[] = [];
    const chunksWritten: number[] = [];
    const changed = [...docs.slice(-UPSERTS / 2), ...docs.slice(0, UPSERTS / 2).map((d) => ({ ...d, body: `${d.body} edited` }))];
    let upkeepMs = 0;
    let merges = 0;
    for (const doc of changed) {
      started = performance.now();
      const change = (await writer.upsert(BLOG, [doc]))!;
      upserts.push(performance.now() - started);
      chunksWritten.push(change.written.filter((k) => k.includes('/search/t/')).length);
      if (change.due) {
        // The publisher runs this in the background after the publish has answered.
        started = performance.now();
        await writer.maintain(BLOG);
        upkeepMs += performance.now() - started;
        merges += 1;
      }
    }
    const meta = JSON.parse((await store.get(metaKey(BLOG)))!.body.toString()) as StaticMeta;
    rows.push({
      area,
      measure: `publish: one post's index update p50 / p95 / max (${UPSERTS} posts, half edits)`,
      value: `${percentile(upserts, 0.5).toFixed(0)} / ${percentile(upserts, 0.95).toFixed(0)} / ${Math.max(...upserts).toFixed(0)} ms`,
      target: `term chunks rewritten p50 ${percentile(chunksWritten, 0.5)}, max ${Math.max(...chunksWritten)} of ${meta.chunks}`,
    });
    rows.push({
      area,
      measure: `background upkeep: a delta merge, due every ${deltaMax(meta.chunks)} publishes (${merges} in this run)`,
      value: `${(upkeepMs / 1000 / Math.max(1, merges)).toFixed(1)} s each`,
      target: 'off the publish path',
    });

    const keys = await store.list(`${BLOG}/search/`);
    const wire = new WireSizes(store);
    let raw = 0;
    let gz = 0;
    for (const key of keys) {
      raw += (await store.get(key))!.body.length;
      gz += await wire.of(key);
    }
    rows.push({
      area,
      measure: `index size (${keys.length} files, ${meta.chunks} term chunks)`,
      value: `${(gz / 1e6).toFixed(1)} MB gzip`,
      target: `${(raw / 1e6).toFixed(1)} MB raw`,
    });

    // The page itself and its script, as the publisher writes them.
    const theme = loadTheme(templatesDir);
    const ctx = createRenderContext({
      theme,
      blog: { id: 'b', slug: BLOG, name: 'Bench', description: '', baseUrl: 'https://bench.example.com', themeConfig: {}, updatedAt: new Date().toISOString() },
    });
    const pageObject = renderSearchPage(ctx);
    await store.put(pageObject.key, pageObject.body, { contentType: pageObject.contentType, cacheControl: pageObject.cacheControl });
    for (const asset of siteAssets(BLOG, theme.assets))
      await store.put(asset.key, asset.body, { contentType: asset.contentType, cacheControl: asset.cacheControl });
    const scriptKey = `${BLOG}/assets/${theme.searchScript}`;
    const pageBytes = (await wire.of(pageObject.key)) + (await wire.of(`${BLOG}/assets/${theme.stylesheet}`));
    const scriptBytes = await wire.of(scriptKey);
    rows.push({ area, measure: 'search script (gzip)', value: kb(scriptBytes), target: '≤ 15 KB' });

    const queries = generateQueries(docs, QUERIES);
    const first: number[] = [];
    const further: number[] = [];
    let previous = new Set<string>();
    for (const q of queries) {
      const files = await filesOf(store, meta, q);
      let index = 0;
      for (const key of files) index += await wire.of(key);
      first.push(pageBytes + scriptBytes + index);
      let extra = 0;
      for (const key of files) if (!previous.has(key) && key !== metaKey(BLOG)) extra += await wire.of(key);
      further.push(extra);
      previous = new Set(files);
    }
    rows.push({
      area,
      measure: `first query: page + CSS + script + index, median / p95 (${QUERIES} queries)`,
      value: `${kb(percentile(first, 0.5))} / ${kb(percentile(first, 0.95))}`,
      target: '≤ 150 KB (Pagefind: < 300 KB)',
    });
    rows.push({
      area,
      measure: `further query: index files not yet loaded, median / p95`,
      value: `${kb(percentile(further, 0.5))} / ${kb(percentile(further, 0.95))}`,
      target: '≤ 50 KB',
    });

    const times = await browserTimes(store, queries.slice(0, BROWSER_QUERIES));
    for (const which of ['first', 'all'] as const) {
      const cold = times.cold.map((t) => t[which]);
      const warm = times.warm.map((t) => t[which]);
      rows.push({
        area,
        measure: `Chromium, 4× CPU throttling, query typed then Enter → ${which === 'first' ? 'first result' : 'ten results'} painted: fresh page p50 / max of ${COLD_QUERIES}; further queries p50 / max of ${warm.length}`,
        value: `${percentile(cold, 0.5).toFixed(0)} / ${Math.max(...cold).toFixed(0)} ms; ${percentile(warm, 0.5).toFixed(0)} / ${Math.max(...warm).toFixed(0)} ms`,
        target: '≤ 300 ms',
      });
    }
    return rows;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
