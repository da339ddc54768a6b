/**
 * Search engine figures on the generated corpus (/work/shared/corpus/generate.mjs), written to
 * a folder store in a temp dir:
 *
 * - full reindex (worker threads when run from dist/) and the index's size in the store;
 * - in a fresh child process (a simulated restart, so the build's garbage is not counted):
 *   first-query latency with an empty cache (segments opened as the server opens them), FTS5 over the same posts and queries in the same run, warm latency p50/p95 over generated English and
 *   Korean queries for both match executors, heap and RSS with the index loaded;
 * - index update of a publish: single-post upsert p50/p95 (new and edited posts, background
 *   merges running as in production).
 *
 * The child is this same module, started with READER_FLAG; it exists only in compiled form,
 * which is how `npm run bench` runs it.
 */
import { fork } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { manifestKey, parseManifest, searchPrefix } from '../src/search/manifest.js';
import type { MatchExecutor } from '../src/search/ranking.js';
import { defaultWorkerCount } from '../src/search/parallelBuild.js';
import { SearchIndexCache } from '../src/search/searchIndexCache.js';
import { SearchIndexWriter } from '../src/search/searchIndexWriter.js';
import type { SearchDocument } from '../src/search/searchTypes.js';
import { tokenize } from '../src/search/tokenize.js';
import { FsSiteStore } from '../src/storage/fsSiteStore.js';
import { pooledSearchWork } from '../src/search/pooledSearchWork.js';
import { HeavyWork } from '../src/heavyWork/heavyWork.js';
import type { BenchRow } from './table.js';
import { Fts5Anchor } from './anchors/fts5Search.js';

const BLOG = 'bench';
const READER_FLAG = '--folio-search-bench-reader';
const QUERY_COUNT = 240;
const UPSERTS = 120;

interface ReaderRequest {
  root: string;
  ftsPath: string;
  queries: string[];
  codeQueries: string[];
}

interface Latency {
  p50: number;
  p95: number;
  max: number;
}

interface ReaderReport {
  firstQueryMs: number;
  firstQueryHits: number;
  warm: Record<MatchExecutor, Latency>;
  /** FTS5 on the same queries, timed alternately with the default executor: top 20 and count; top 20 alone. */
  fts5: Latency;
  fts5Top: Latency;
  /** Code-word queries that find nothing: Folio, FTS5. */
  codeMisses: { folio: number; fts5: number };
  heapMb: number;
  /** Typed arrays (the postings) live outside the JS heap. */
  arrayBuffersMb: number;
  rssMb: number;
  estimatedMb: number;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;
}

function latency(sorted: readonly number[]): Latency {
  return { p50: percentile(sorted, 0.5), p95: percentile(sorted, 0.95), max: sorted[sorted.length - 1] ?? Number.NaN };
}

function ms(value: number): string {
  return `${value.toFixed(value < 10 ? 2 : 0)} ms`;
}

/** Front matter of generate.mjs: title (JSON string), slug, date, tags [a, b], lang. */
function parsePost(text: string, url: string): SearchDocument {
  const end = text.indexOf('\n---\n', 4);
  const front = text.slice(4, end);
  const field = (name: string): string => new RegExp(`^${name}: (.*)$`, 'm').exec(front)?.[1] ?? '';
  const slug = field('slug');
  const markdown = text.slice(end + 5);
  const body = markdownToText(markdown);
  const date = `${field('date')}T09:00:00.000Z`;
  const cut = body.slice(0, 160);
  return {
    id: slug.slice(-6),
    slug,
    title: JSON.parse(field('title')) as string,
    body,
    code: codeText(markdown),
    metaDescription: cut.length < 160 ? cut : cut.slice(0, cut.lastIndexOf(' ')),
    tags: field('tags')
      .replace(/^\[|\]$/g, '')
      .split(', ')
      .filter(Boolean),
    createdAt: date,
    publishedAt: date,
    url: `${url}/${slug}/`,
  };
}

/** The text of the fenced code blocks, as the publisher's htmlToSearchText takes it apart. */
function codeText(md: string): string {
  const blocks = md.match(/^```[^\n]*\n[\s\S]*?^```/gm) ?? [];
  return blocks
    .map((block) => block.replace(/^```.*$/gm, ' '))
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Roughly what the publisher's htmlToPlainText gives: code blocks out, markup off. */
function markdownToText(md: string): string {
  return md
    .replace(/^```[\s\S]*?^```/gm, ' ')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[*`#>]/g, '')
    .replace(/^\s*(\d+\.|-)\s+/gm, '')
    .replace(/\s+/g, ' ')
    .trim();
}

export function loadCorpus(corpusDir: string, posts: number): SearchDocument[] {
  const dir = join(corpusDir, 'posts');
  // File names are slugs ending in the post's number; that number is the generation order.
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.md'))
    .sort((a, b) => Number(a.slice(-9, -3)) - Number(b.slice(-9, -3)));
  if (files.length < posts) throw new Error(`${dir} holds ${files.length} posts; run: node /work/shared/corpus/generate.mjs ${posts} ${corpusDir}`);
  return files.slice(0, posts).map((f) => parsePost(readFileSync(join(dir, f), 'utf8'), 'https://bench.example.com'));
}

/** Deterministic generator for query picking (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * What readers type: one to three words of a post's title (Korean ones as written, particles
 * included; the engine strips them). English words as they are, common ones included.
 */
export function generateQueries(docs: readonly SearchDocument[], count: number): string[] {
  const next = random(7);
  const korean = docs.filter((d) => /[가-힣]/.test(d.title));
  const english = docs.filter((d) => !/[가-힣]/.test(d.title));
  const queries: string[] = [];
  while (queries.length < count) {
    const pool = queries.length % 5 === 4 ? korean : english;
    const doc = pool[Math.floor(next() * pool.length)];
    if (!doc) break;
    const words = [...new Set(tokenize(doc.title))];
    const n = 1 + Math.floor(next() * Math.min(3, words.length));
    const picked = new Set<string>();
    while (picked.size < n) picked.add(words[Math.floor(next() * words.length)]!);
    queries.push([...picked].join(' '));
  }
  return queries;
}

/** Words of code blocks, as someone looking for a snippet types them (one word each). */
export function generateCodeQueries(docs: readonly SearchDocument[], count: number): string[] {
  const next = random(13);
  const withCode = docs.filter((d) => d.code.length > 0);
  const queries: string[] = [];
  for (let tries = 0; queries.length < count && tries < count * 20 && withCode.length > 0; tries++) {
    const words = tokenize(withCode[Math.floor(next() * withCode.length)]!.code).filter((w) => /^[a-z]{3,}$/.test(w));
    const word = words[Math.floor(next() * words.length)];
    if (word) queries.push(word);
  }
  return queries;
}

async function storedBytes(store: FsSiteStore): Promise<{ bytes: number; objects: number }> {
  let bytes = 0;
  const keys = await store.list(searchPrefix(BLOG));
  for (const key of keys) bytes += (await store.get(key))?.body.length ?? 0;
  return { bytes, objects: keys.length };
}

function runReader(request: ReaderRequest): Promise<ReaderReport> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), [READER_FLAG], { execArgv: ['--expose-gc'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child.once('message', (report: ReaderReport) => resolve(report));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`search bench reader exited with ${code}`));
    });
    child.send(request);
  });
}

export async function runSearchBench(opts: { posts: number; corpusDir: string }): Promise<BenchRow[]> {
  const area = `search (${opts.posts.toLocaleString('en-US')} posts)`;
  const rows: BenchRow[] = [];
  const root = mkdtempSync(join(tmpdir(), 'folio-search-bench-'));
  try {
    const docs = loadCorpus(opts.corpusDir, opts.posts);
    const queries = generateQueries(docs, QUERY_COUNT);
    const store = new FsSiteStore({ root });

    const writer = new SearchIndexWriter(store);
    let started = performance.now();
    // CPU time of the whole process, worker threads included: shows how busy the cores were.
    const cpuBefore = process.cpuUsage();
    await writer.rebuild(BLOG, docs);
    const reindexMs = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    rows.push({
      area,
      measure: `full reindex (${defaultWorkerCount()} worker threads; CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s)`,
      value: `${(reindexMs / 1000).toFixed(1)} s`,
    });

    const ftsPath = join(root, 'fts5.db');
    const { anchor, insertMs } = Fts5Anchor.build(ftsPath, docs);
    anchor.close();
    rows.push({
      area,
      measure: 'full reindex ÷ FTS5 bulk insert of the same posts (same run)',
      value: `${(reindexMs / 1000).toFixed(1)} s ÷ ${(insertMs / 1000).toFixed(1)} s = ${(reindexMs / insertMs).toFixed(2)}×`,
      target: '≤ 3×',
    });

    const size = await storedBytes(store);
    const manifest = parseManifest('manifest', (await store.get(manifestKey(BLOG)))!.body);
    const formats = [...new Set(manifest.segments.map((s) => (s.format === 3 ? 'format 3, uncompressed' : 'gzip')))].join(', ');
    rows.push({ area, measure: `index size in store (${size.objects} objects; ${formats})`, value: `${(size.bytes / 1e6).toFixed(1)} MB` });

    const codeQueries = generateCodeQueries(docs, 200);
    const reader = await runReader({ root, ftsPath, queries, codeQueries });
    rows.push({
      area,
      measure: 'first query after restart (load + query)',
      value: ms(reader.firstQueryMs),
      target: opts.posts >= 50_000 ? '≤ 1 s' : '≤ 300 ms',
    });
    const fast = reader.warm.postings;
    rows.push({
      area,
      measure: `query p50 / p95 / max, ${queries.length} queries (default executor)`,
      value: `${ms(fast.p50)} / ${ms(fast.p95)} / ${ms(fast.max)}`,
    });
    const { fts5, fts5Top } = reader;
    rows.push({
      area,
      measure: `FTS5 top 20 + count, p50 / p95 / max, same queries, alternating`,
      value: `${ms(fts5.p50)} / ${ms(fts5.p95)} / ${ms(fts5.max)}`,
    });
    rows.push({ area, measure: `FTS5 top 20 alone, p50 / p95 / max`, value: `${ms(fts5Top.p50)} / ${ms(fts5Top.p95)} / ${ms(fts5Top.max)}` });
    rows.push({
      area,
      measure: 'query p95 ÷ FTS5 p95 (top 20 + count; top 20 alone)',
      value: `${(fast.p95 / fts5.p95).toFixed(2)}×; ${(fast.p95 / fts5Top.p95).toFixed(2)}×`,
      target: '≤ 1.5×',
    });
    const lunr = reader.warm.lunr;
    rows.push({ area, measure: `query p50 / p95 / max (executor "lunr", lunr Index#query)`, value: `${ms(lunr.p50)} / ${ms(lunr.p95)} / ${ms(lunr.max)}` });
    rows.push({
      area,
      measure: `code-word queries finding nothing, Folio / FTS5 (of ${codeQueries.length})`,
      value: `${reader.codeMisses.folio} / ${reader.codeMisses.fts5}`,
      target: 'as FTS5',
    });
    rows.push({
      area,
      measure: 'memory with index loaded (JS heap + array buffers / RSS)',
      value: `${reader.heapMb.toFixed(0)} + ${reader.arrayBuffersMb.toFixed(0)} / ${reader.rssMb.toFixed(0)} MB`,
      target: `RSS ≤ 500 MB (cache estimate ${reader.estimatedMb.toFixed(0)} MB)`,
    });
    rows.push({
      area,
      measure: 'load average (1 / 5 / 15 min) after the queries',
      value: loadavg()
        .map((l) => l.toFixed(1))
        .join(' / '),
    });

    // Publishing: the index update part, on a warm writer (as in the server process).
    const cache = new SearchIndexCache(store);
    const publisher = new SearchIndexWriter(store, { cache });
    await cache.search(BLOG, 'warm', { page: 1, perPage: 1 });
    const times: number[] = [];
    const next = random(11);
    for (let i = 0; i < UPSERTS; i++) {
      const source = docs[Math.floor(next() * docs.length)]!;
      // Half are edits of existing posts, half new posts.
      const doc = i % 2 === 0 ? { ...source, body: `${source.body} edited ${i}` } : { ...source, id: `new${i}`, slug: `${source.slug}-new-${i}` };
      started = performance.now();
      await publisher.upsert(BLOG, [doc]);
      times.push(performance.now() - started);
    }
    await publisher.idle();
    times.sort((a, b) => a - b);
    rows.push({
      area,
      measure: `single-post upsert p50 / p95 (${UPSERTS} publishes)`,
      value: `${ms(percentile(times, 0.5))} / ${ms(percentile(times, 0.95))}`,
      target: 'p95 ≪ 150 ms',
    });
    return rows;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as unknown;
  if (typeof gc === 'function') (gc as () => void)();
}

async function readerMain(request: ReaderRequest): Promise<ReaderReport> {
  const store = new FsSiteStore({ root: request.root });
  const first = request.queries[0] ?? 'server';
  // Wired as compose/search.ts wires the server: large segments are decoded on the worker pool.
  const heavy = new HeavyWork();
  let cache: SearchIndexCache | null = new SearchIndexCache(store, { decode: pooledSearchWork(heavy).decode });
  const started = performance.now();
  const firstResult = await cache.search(BLOG, first, { page: 1, perPage: 20 });
  const firstQueryMs = performance.now() - started;
  await heavy.close();

  const fts = Fts5Anchor.open(request.ftsPath);
  const warm = {} as ReaderReport['warm'];
  let ftsTimes: number[] = [];
  let ftsTopTimes: number[] = [];
  const codeMisses = { folio: 0, fts5: 0 };
  let memory: NodeJS.MemoryUsage | undefined;
  let estimated = 0;
  // The default executor first (its cache is the one already loaded), then lunr's.
  for (const executor of ['postings', 'lunr'] as const) {
    cache ??= new SearchIndexCache(store, { executor });
    const active: SearchIndexCache = cache;
    await active.search(BLOG, first, { page: 1, perPage: 20 });
    // One untimed pass lets V8 optimise the hot loops, as in a long-running server.
    for (const q of request.queries.slice(0, 20)) {
      await active.search(BLOG, q, { page: 1, perPage: 20 });
      fts.search(q);
    }
    const times: number[] = [];
    const anchorTimes: number[] = [];
    const anchorTopTimes: number[] = [];
    for (const q of request.queries) {
      let t = performance.now();
      await active.search(BLOG, q, { page: 1, perPage: 20 });
      times.push(performance.now() - t);
      if (executor !== 'postings') continue;
      t = performance.now();
      fts.search(q);
      anchorTimes.push(performance.now() - t);
      t = performance.now();
      fts.searchTop(q);
      anchorTopTimes.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    warm[executor] = latency(times);
    if (executor === 'postings') {
      ftsTimes = anchorTimes.sort((a, b) => a - b);
      ftsTopTimes = anchorTopTimes.sort((a, b) => a - b);
      for (const q of request.codeQueries) {
        if ((await active.search(BLOG, q, { page: 1, perPage: 20 })).total === 0) codeMisses.folio++;
        if (fts.search(q).total === 0) codeMisses.fts5++;
      }
    }
    if (!memory) {
      // Measured with exactly one loaded copy of the index alive.
      collectGarbage();
      memory = process.memoryUsage();
      estimated = active.stats().bytes;
    }
    cache = null;
  }
  fts.close();
  return {
    firstQueryMs,
    firstQueryHits: firstResult.total,
    warm,
    fts5: latency(ftsTimes),
    fts5Top: latency(ftsTopTimes),
    codeMisses,
    heapMb: memory!.heapUsed / 1e6,
    arrayBuffersMb: memory!.arrayBuffers / 1e6,
    rssMb: memory!.rss / 1e6,
    estimatedMb: estimated / 1e6,
  };
}

if (process.argv.includes(READER_FLAG)) {
  process.once('message', (request: ReaderRequest) => {
    readerMain(request)
      .then((report) => process.send?.(report, () => process.exit(0)))
      .catch((err: unknown) => {
        console.error(err);
        process.exit(1);
      });
  });
}
