/**
 * Many tenants on one VM (issue 12, item 6): 1,000 blogs of 100 posts each plus one of 50,000
 * (sizes from the options), indexed into one folder store, then searched through one
 * SearchIndexCache with the server's default budget (FOLIO_SEARCH_CACHE_MB):
 *
 * - readers query random blogs (every tenth query the large one): the cache's estimated bytes
 *   after every query, and the latency of queries whose blog had been evicted (or never
 *   loaded) next to those answered from memory;
 * - publishing into one small blog while the readers search other blogs, next to the same
 *   publishes with nobody searching: the index update of a publish, as the server runs it.
 *
 * In one process, as in the server: readers and the writer share the event loop.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { DEFAULT_CACHE_BYTES, SearchIndexCache } from '../src/search/searchIndexCache.js';
import { SearchIndexWriter } from '../src/search/searchIndexWriter.js';
import type { SearchDocument } from '../src/search/searchTypes.js';
import { FsSiteStore } from '../src/storage/fsSiteStore.js';
import { pooledSearchWork } from '../src/search/pooledSearchWork.js';
import { HeavyWork } from '../src/heavyWork/heavyWork.js';
import { percentile } from './harness/stats.js';
import { generateQueries, loadCorpus } from './searchBench.js';
import type { BenchRow } from './table.js';

export interface TenantsBenchOptions {
  blogs: number;
  postsPerBlog: number;
  bigPosts: number;
  corpusDir: string;
  cacheBytes?: number;
}

const QUERIES = 3000;
const PUBLISHES = 100;
const BIG = 'big';

function ms(value: number): string {
  return `${value.toFixed(value < 10 ? 2 : 0)} ms`;
}

/** Posts of small blog `i`: a window of the corpus, with ids and slugs of their own. */
function blogDocs(corpus: readonly SearchDocument[], i: number, n: number): SearchDocument[] {
  const docs: SearchDocument[] = [];
  for (let j = 0; j < n; j++) {
    const d = corpus[(i * n + j) % corpus.length]!;
    docs.push({ ...d, id: `t${i}-${j}`, slug: `${d.slug}-${i}` });
  }
  return docs;
}

export async function runTenantsBench(opts: TenantsBenchOptions): Promise<BenchRow[]> {
  const area = `tenants (${opts.blogs.toLocaleString('en-US')} × ${opts.postsPerBlog} + ${opts.bigPosts.toLocaleString('en-US')})`;
  const rows: BenchRow[] = [];
  const root = mkdtempSync(join(tmpdir(), 'folio-tenants-bench-'));
  const budget = opts.cacheBytes ?? DEFAULT_CACHE_BYTES;
  try {
    const corpus = loadCorpus(opts.corpusDir, opts.bigPosts);
    const store = new FsSiteStore({ root });
    // Small blogs are built in place: starting worker threads for 100 posts costs more than it saves.
    const small = new SearchIndexWriter(store, { autoMerge: false, workers: 0 });
    const builder = new SearchIndexWriter(store, { autoMerge: false });
    let started = performance.now();
    for (let i = 0; i < opts.blogs; i++) await small.rebuild(`t${i}`, blogDocs(corpus, i, opts.postsPerBlog));
    await builder.rebuild(BIG, corpus);
    rows.push({ area, measure: 'index every blog (rebuild)', value: `${((performance.now() - started) / 1000).toFixed(1)} s` });

    // Wired as compose/search.ts wires the server: large segments decoded, built and merged on the
    // shared worker pool.
    const heavy = new HeavyWork();
    const work = pooledSearchWork(heavy);
    const cache = new SearchIndexCache(store, { maxBytes: budget, decode: work.decode });
    const queries = generateQueries(corpus.slice(0, 10_000), 500);
    let next = 1;
    const random = (): number => {
      next = (next * 48271) % 2147483647;
      return next / 2147483647;
    };
    const pickBlog = (q: number): string => (q % 10 === 9 ? BIG : `t${Math.floor(random() * opts.blogs)}`);

    const cold: number[] = [];
    const warm: number[] = [];
    let bigCold: number[] = [];
    let maxBytes = 0;
    for (let q = 0; q < QUERIES; q++) {
      const blog = pickBlog(q);
      const loaded = cache.stats().blogs.includes(blog);
      const t = performance.now();
      await cache.search(blog, queries[q % queries.length]!, { page: 1, perPage: 20 });
      const elapsed = performance.now() - t;
      if (!loaded && blog === BIG) bigCold = [...bigCold, elapsed];
      else (loaded ? warm : cold).push(elapsed);
      maxBytes = Math.max(maxBytes, cache.stats().bytes);
    }
    cold.sort((a, b) => a - b);
    warm.sort((a, b) => a - b);
    const mb = (bytes: number): string => `${(bytes / 1048576).toFixed(0)} MB`;
    rows.push({
      area,
      measure: `search cache, largest estimate over ${QUERIES} queries`,
      value: `${mb(maxBytes)} of ${mb(budget)}`,
      target: '≤ FOLIO_SEARCH_CACHE_MB',
    });
    rows.push({
      area,
      measure: `query of a small blog not in memory (${cold.length}), p50 / p95`,
      value: `${ms(percentile(cold, 0.5))} / ${ms(percentile(cold, 0.95))}`,
    });
    rows.push({
      area,
      measure: `query of a blog in memory (${warm.length}), p50 / p95`,
      value: `${ms(percentile(warm, 0.5))} / ${ms(percentile(warm, 0.95))}`,
    });
    rows.push({ area, measure: `query of the large blog not in memory (${bigCold.length}×), worst`, value: ms(Math.max(...bigCold, 0)), target: '≤ 1 s' });

    // Publishing into t0 alone, then while readers search the other blogs.
    const writer = new SearchIndexWriter(store, { cache, buildSegment: work.buildSegment, mergeSegments: work.mergeSegments });
    const publishes = async (tag: string): Promise<number[]> => {
      const times: number[] = [];
      for (let i = 0; i < PUBLISHES; i++) {
        const source = corpus[(i * 37) % 10_000]!;
        const doc = { ...source, id: `${tag}${i}`, slug: `${source.slug}-${tag}-${i}` };
        const t = performance.now();
        await writer.upsert('t0', [doc]);
        times.push(performance.now() - t);
      }
      await writer.idle();
      return times.sort((a, b) => a - b);
    };
    await cache.search('t0', 'warm', { page: 1, perPage: 1 });
    const alone = await publishes('alone');
    let reading = true;
    let readerQueries = 0;
    const reader = (async () => {
      for (let q = 0; reading; q++) {
        await cache.search(pickBlog(q) === 't0' ? 't1' : pickBlog(q), queries[q % queries.length]!, { page: 1, perPage: 20 });
        readerQueries++;
        await yieldToLoop();
      }
    })();
    started = performance.now();
    const busy = await publishes('busy');
    const seconds = (performance.now() - started) / 1000;
    reading = false;
    await reader;
    const ratio = percentile(busy, 0.95) / percentile(alone, 0.95);
    rows.push({ area, measure: `publish (index update) p50 / p95, nobody searching`, value: `${ms(percentile(alone, 0.5))} / ${ms(percentile(alone, 0.95))}` });
    rows.push({
      area,
      measure: `publish p50 / p95 while readers search other blogs (${(readerQueries / seconds).toFixed(0)} queries/s)`,
      value: `${ms(percentile(busy, 0.5))} / ${ms(percentile(busy, 0.95))} (p95 ${ratio.toFixed(1)}×)`,
      target: 'flat',
    });
    await heavy.close();
    rows.push({
      area,
      measure: 'RSS at the end; load average (1 / 5 min)',
      value: `${(process.memoryUsage().rss / 1e6).toFixed(0)} MB; ${loadavg()
        .slice(0, 2)
        .map((l) => l.toFixed(1))
        .join(' / ')}`,
    });
    return rows;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
