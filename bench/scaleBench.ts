/**
 * The `scale` section (#31): one blog grown from 1,000 to 10,000, 50,000 and 100,000 posts
 * (`--max-posts` stops early), and at each size: publish p50/p95 and search p95 over HTTP
 * against the real server, its RSS at rest, a full rebuild's wall time and peak RSS (then the
 * reindex in the same process, as `folio site rebuild` does), and Hugo's full build of the same
 * posts (anchors/hugoSite.ts) in the same invocation. Ratios: rebuild ÷ Hugo (target ≤ 0.5×),
 * and each size's publish and search p95 ÷ the same at 1,000 and 10,000 posts (target ≤ 1.5×), measured
 * again with every size served at once and taking turns (scaleInterleaved.ts), where the load is the same.
 * The blog is imported once and grown through the bench importer; everything lives in temp dirs.
 */
import { execFileSync } from 'node:child_process';
import { loadavg, totalmem } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { buildHugo, createHugoSite, hugoVersion, type HugoSite } from './anchors/hugoSite.js';
import { loadCorpus } from './corpus.js';
import { percentile } from './harness/stats.js';
import { importCorpus, importMore, removeImported, type ImportedBlog } from './importCorpus.js';
import { interleavedRows, keepCopy, removeCopies, type KeptSize } from './scaleInterleaved.js';
import { queriesOf, timedPublish, timedSearch } from './scaleRequests.js';
import { settle } from './publishBench.js';
import { scriptEnv, startBenchServer } from './serverProcess.js';
import type { BenchRow } from './table.js';

const REBUILD_CHILD = fileURLToPath(new URL('./rebuildChild.js', import.meta.url));
export const SCALE_SIZES = [1_000, 10_000, 50_000, 100_000] as const;
const PUBLISH_SAMPLES = 60;
/**
 * Social cards off, in the rebuild and the server: with them on, the server spends its first
 * hour drawing 100,000 cards (site_cards jobs), which is neither a rebuild nor a publish, and
 * Hugo draws none.
 */
const ENV = { FOLIO_SOCIAL_CARDS: 'off' };
/** The server settles this long after its first answer before its RSS counts as at rest. */
const REST_MS = 5_000;

interface SizeFigures {
  size: number;
  publishP50: number;
  publishP95: number;
  searchP50: number;
  searchP95: number;
  /** The p95 of the same queries asked a second time. */
  againP95: number;
  /** The first pass's slowest query, and its time in both passes. */
  slowest: { query: string; ms: number; again: number };
  /** The bench process's own longest event-loop stall during the first pass: time the client adds to the figures. */
  clientStallMs: number;
}

interface RebuildFigures {
  ms: number;
  objects: number;
  maxRssMb: number;
  reindexMs: number | null;
  maxRssWithReindexMb: number | null;
}

const load = (): string => loadavg()[0]!.toFixed(1);

/** RSS at rest, then publishes (draft created, then timed `POST …/publish`), then searches. */
async function measureServer(blog: ImportedBlog, queries: readonly string[], size: number): Promise<{ figures: SizeFigures; restRssMb: number }> {
  await settle(blog, ENV);
  const server = await startBenchServer({ FOLIO_DATA_DIR: blog.dataDir, FOLIO_RATE_LIMITS: 'off', FOLIO_LOG_LEVEL: 'warn', ...ENV });
  try {
    await new Promise((resolve) => setTimeout(resolve, REST_MS));
    const restRssMb = (await server.rss()) / 1024 / 1024;
    const publishes: number[] = [];
    for (let i = 0; i < PUBLISH_SAMPLES; i++) publishes.push(await timedPublish(server, blog, `Scale publish ${size} ${i}`));
    const searchAll = async (): Promise<number[]> => {
      const searches: number[] = [];
      for (const q of queries) searches.push(await timedSearch(server, blog, q));
      return searches;
    };
    // This process grew the blog in-process and holds its corpus: its own pauses would count as the server's.
    const stalls = monitorEventLoopDelay({ resolution: 5 });
    stalls.enable();
    const searches = await searchAll();
    stalls.disable();
    // The same queries again: a tail that the second pass lacks is the first touch of the index, not its size.
    const again = await searchAll();
    const slowest = searches.indexOf(Math.max(...searches));
    return {
      figures: {
        size,
        publishP50: percentile(publishes, 0.5),
        publishP95: percentile(publishes, 0.95),
        searchP50: percentile(searches, 0.5),
        searchP95: percentile(searches, 0.95),
        againP95: percentile(again, 0.95),
        slowest: { query: queries[slowest]!, ms: searches[slowest]!, again: again[slowest]! },
        clientStallMs: stalls.max / 1e6,
      },
      restRssMb,
    };
  } finally {
    await server.stop();
  }
}

/**
 * A full rebuild then the reindex, in a child process of its own (its peak RSS is its own), with
 * the variables `npm run folio` sets: it stands for `folio site rebuild`.
 */
function rebuild(blog: ImportedBlog): RebuildFigures {
  const out = execFileSync(process.execPath, [REBUILD_CHILD, blog.dataDir, blog.blogSlug, '--with-search'], {
    maxBuffer: 1 << 20,
    env: { ...process.env, ...scriptEnv('folio'), ...ENV },
  }).toString();
  return JSON.parse(out) as RebuildFigures;
}

/**
 * Hugo's peak memory per post of this site, with a margin: 18 GB at 50,000 posts here (0.36 MB a
 * post). A build that cannot fit is not started, since the kernel's OOM killer would pick among
 * the bench's processes.
 */
const HUGO_MB_PER_POST = 0.45;

const ratio = (a: number, b: number): string => `${(a / b).toFixed(2)}×`;

/** `rows` gets each figure as it is measured (and stderr a copy), so a failure at 100,000 posts keeps the smaller sizes'. */
export async function runScaleBench(opts: { maxPosts: number; minPosts?: number; measured?: readonly number[] }, out: BenchRow[] = []): Promise<BenchRow[]> {
  const sizes = SCALE_SIZES.filter((size) => size <= opts.maxPosts);
  if (sizes.length === 0) return [{ area: 'scale', measure: `no size ≤ --max-posts ${opts.maxPosts}`, value: '—' }];
  const largest = sizes[sizes.length - 1]!;
  // The largest corpus, taken a prefix at a time: each size holds the posts of the one before.
  const corpus = loadCorpus(largest);
  const queries = queriesOf(corpus);
  const version = hugoVersion();
  const rows = {
    push(...added: BenchRow[]): void {
      for (const row of added) process.stderr.write(`scale: ${row.measure}: ${row.value}\n`);
      out.push(...added);
    },
  };
  rows.push({ area: 'scale', measure: 'Hugo (the rebuild anchor)', value: version ? version.split(' ')[1]! : 'not found: apt-get install -y hugo' });
  const hugo: HugoSite | null = version ? createHugoSite() : null;
  const figures: SizeFigures[] = [];
  let blog: ImportedBlog | null = null;
  let imported = 0;
  // Copies of the blog at each measured size below the largest, served beside it at the end.
  const kept: KeptSize[] = [];
  try {
    for (const size of sizes) {
      const started = performance.now();
      const more = corpus.slice(imported, size);
      if (!blog) blog = await importCorpus(more, 'scale');
      else await importMore(blog, more, imported);
      hugo?.add(more);
      imported = size;
      rows.push({
        area: 'scale',
        measure: `${size} posts: import ${more.length} more (service layer; load average ${load()})`,
        value: `${((performance.now() - started) / 1000).toFixed(0)} s`,
      });
      // Only grown through, not measured (--min-posts, --scale-sizes): a later size's run without the earlier ones'.
      if (size < (opts.minPosts ?? 0) || (opts.measured && !opts.measured.includes(size))) continue;

      const loadBefore = load();
      const folio = rebuild(blog);
      const hugoNeedsGb = (size * HUGO_MB_PER_POST) / 1024;
      const hugoFits = hugoNeedsGb * 1024 ** 3 < totalmem();
      const built = hugo && hugoFits ? buildHugo(hugo) : null;
      rows.push({
        area: 'scale',
        measure: `${size} posts: full rebuild (${folio.objects} objects), wall / peak RSS (load average ${loadBefore})`,
        value: `${(folio.ms / 1000).toFixed(1)} s / ${folio.maxRssMb.toFixed(0)} MB`,
        target: '≤ 1024 MB',
      });
      rows.push({
        area: 'scale',
        measure: `${size} posts: rebuild then reindex in one process, reindex wall / peak RSS`,
        value: `${((folio.reindexMs ?? 0) / 1000).toFixed(1)} s / ${(folio.maxRssWithReindexMb ?? 0).toFixed(0)} MB`,
        target: '≤ 1024 MB',
      });
      rows.push(
        built
          ? {
              area: 'scale',
              measure: `${size} posts: Hugo full build (${built.pages} HTML pages), wall / peak RSS; Folio's rebuild ÷ Hugo`,
              value: `${(built.ms / 1000).toFixed(1)} s / ${built.maxRssMb === null ? '?' : built.maxRssMb.toFixed(0)} MB; ${ratio(folio.ms, built.ms)}`,
              target: '≤ 0.5×',
            }
          : {
              area: 'scale',
              measure: `${size} posts: Hugo full build`,
              value: hugo
                ? `not run: it would need about ${hugoNeedsGb.toFixed(0)} GB, this machine has ${(totalmem() / 1024 ** 3).toFixed(0)} GB`
                : 'hugo not found',
            },
      );

      const loadServer = load();
      const { figures: measured, restRssMb } = await measureServer(blog, queries, size);
      figures.push(measured);
      rows.push({ area: 'scale', measure: `${size} posts: server RSS at rest (${REST_MS / 1000} s after start)`, value: `${restRssMb.toFixed(0)} MB` });
      const against = figures.filter((f) => f.size === 1_000 || f.size === 10_000).filter((f) => f.size < size);
      const vs = (pick: (f: SizeFigures) => number): string =>
        against.length === 0 ? '' : `; ÷ ${against.map((f) => `${f.size}: ${ratio(pick(measured), pick(f))}`).join(', ')}`;
      rows.push({
        area: 'scale',
        measure: `${size} posts: publish p50 / p95, ${PUBLISH_SAMPLES} publishes, cards off (load average ${loadServer})`,
        value: `${measured.publishP50.toFixed(0)} / ${measured.publishP95.toFixed(0)} ms${vs((f) => f.publishP95)}`,
        target: against.length ? 'p95 ≤ 1.5×' : '',
      });
      rows.push({
        area: 'scale',
        measure: `${size} posts: search p95, ${queries.length} title-word queries over HTTP`,
        value: `${measured.searchP95.toFixed(1)} ms${vs((f) => f.searchP95)}`,
        target: against.length ? '≤ 1.5×' : '',
      });
      rows.push({
        area: 'scale',
        measure: `${size} posts: search p50; p95 of the same queries asked again; the slowest query, first / second time; the bench client's longest stall in the first pass`,
        value: `${measured.searchP50.toFixed(1)} ms; ${measured.againP95.toFixed(1)} ms${vs((f) => f.againP95)}; "${measured.slowest.query}" ${measured.slowest.ms.toFixed(0)} / ${measured.slowest.again.toFixed(0)} ms; ${measured.clientStallMs.toFixed(0)} ms`,
      });
      if (size < largest) kept.push(keepCopy(blog, size));
    }
    if (kept.length > 0 && blog) rows.push(...(await interleavedRows([...kept, { size: largest, blog }], queries, ENV)));
  } finally {
    removeCopies(kept);
    if (blog) removeImported(blog);
    hugo?.remove();
  }
  return out;
}
