/**
 * #31's flatness targets measured side by side. The one-size-at-a-time curve (scaleBench.ts)
 * measures each size's server minutes apart, right after that size's rebuild, so the load of a
 * noisy 2-core machine differs between the figures a ratio divides (load average 0.8 at 1,000
 * posts and 2.6 at 100,000 in one run). Here copies of the blog kept at the smaller sizes are
 * served at once beside the largest, and the servers take turns: each turn is a block of
 * publishes then a block of searches on one server, the order rotating every round, and every
 * queue is empty before the next turn starts. The ratios then divide figures taken under the
 * same load.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { percentile } from './harness/stats.js';
import type { ImportedBlog } from './importCorpus.js';
import { queueEmpty, timedPublish, timedSearch } from './scaleRequests.js';
import { startBenchServer, type BenchServer } from './serverProcess.js';
import type { BenchRow } from './table.js';

const ROUNDS = 8;
const PUBLISHES_PER_TURN = 15;
/** The servers settle this long after the last one answers before the first turn. */
const REST_MS = 5_000;

export interface KeptSize {
  size: number;
  blog: ImportedBlog;
}

/** A copy of the blog's data dir as it is now (its server stopped): the database and the site store. */
export function keepCopy(blog: ImportedBlog, size: number): KeptSize {
  const dataDir = mkdtempSync(join(tmpdir(), `folio-bench-scale-${size}-`));
  cpSync(blog.dataDir, dataDir, { recursive: true });
  return { size, blog: { ...blog, dataDir } };
}

export function removeCopies(kept: readonly KeptSize[]): void {
  for (const { blog } of kept) rmSync(blog.dataDir, { recursive: true, force: true });
}

interface Samples {
  publishes: number[];
  searches: number[];
}

/**
 * Serves every size at once and measures them in turns: ROUNDS × PUBLISHES_PER_TURN publishes
 * each, and the queries once each, split over the rounds (the first time each server meets
 * them, as the curve's first pass).
 */
async function measure(sizes: readonly KeptSize[], queries: readonly string[], env: Record<string, string>): Promise<Map<number, Samples>> {
  const servers: BenchServer[] = [];
  try {
    for (const { blog } of sizes)
      servers.push(await startBenchServer({ FOLIO_DATA_DIR: blog.dataDir, FOLIO_RATE_LIMITS: 'off', FOLIO_LOG_LEVEL: 'warn', ...env }));
    await new Promise((resolve) => setTimeout(resolve, REST_MS));
    const samples = new Map<number, Samples>(sizes.map(({ size }) => [size, { publishes: [], searches: [] }]));
    const perTurn = Math.ceil(queries.length / ROUNDS);
    for (let round = 0; round < ROUNDS; round++) {
      for (let turn = 0; turn < sizes.length; turn++) {
        const at = (round + turn) % sizes.length;
        const { size, blog } = sizes[at]!;
        const server = servers[at]!;
        for (let i = 0; i < servers.length; i++) await queueEmpty(servers[i]!, sizes[i]!.blog);
        const mine = samples.get(size)!;
        for (let i = 0; i < PUBLISHES_PER_TURN; i++) mine.publishes.push(await timedPublish(server, blog, `Side by side ${size} ${round} ${i}`));
        for (const query of queries.slice(round * perTurn, (round + 1) * perTurn)) mine.searches.push(await timedSearch(server, blog, query));
      }
    }
    return samples;
  } finally {
    for (const server of servers) await server.stop();
  }
}

const ratio = (a: number, b: number): string => `${(a / b).toFixed(2)}×`;

/** The anchors of #31's flatness targets: each larger size's p95 is divided by these sizes' p95. */
const ANCHORS = [1_000, 10_000];

/** The interleaved rows: each size's p50 / p95, then each larger size's p95 ÷ the anchors'. */
export async function interleavedRows(sizes: readonly KeptSize[], queries: readonly string[], env: Record<string, string>): Promise<BenchRow[]> {
  const loadBefore = loadavg()[0]!.toFixed(1);
  const samples = await measure(sizes, queries, env);
  const loadAfter = loadavg()[0]!.toFixed(1);
  const row = (what: string, pick: (s: Samples) => number[], digits: number): BenchRow => {
    const at = (size: number, p: number): number => percentile(pick(samples.get(size)!), p);
    const figures = sizes.map(({ size }) => `${size}: ${at(size, 0.5).toFixed(digits)} / ${at(size, 0.95).toFixed(digits)} ms`);
    const ratios = sizes.flatMap(({ size }) =>
      ANCHORS.filter((anchor) => anchor < size && samples.has(anchor)).map((anchor) => `${size} ÷ ${anchor}: ${ratio(at(size, 0.95), at(anchor, 0.95))}`),
    );
    return {
      area: 'scale',
      measure: `side by side (${sizes.length} servers at once, in turns, ${ROUNDS} rounds; load average ${loadBefore} → ${loadAfter}): ${what}, p50 / p95; p95 ratios`,
      value: `${figures.join('; ')}; ${ratios.join(', ')}`,
      target: '≤ 1.5×',
    };
  };
  const { publishes, searches } = samples.get(sizes[0]!.size)!;
  return [
    row(`publish (${publishes.length} each, cards off)`, (s) => s.publishes, 0),
    row(`search (${searches.length} queries each, first time)`, (s) => s.searches, 1),
  ];
}
