/**
 * `--only burst`: writers creating published posts at once into one large blog (issue 31), where
 * coalesced publishing folds the posts that arrive while the blog's pipeline is busy
 * (docs/publishing.md#coalesced-publishing). Each figure is measured twice on the same data dir
 * in the same run: with FOLIO_PUBLISH_BATCH=1 (every job alone: the path before coalescing, the
 * anchor) and with the default, and reported as a ratio of the two, with the load average.
 */
import { availableParallelism, loadavg } from 'node:os';
import { loadCorpus, type CorpusPost } from './corpus.js';
import { percentile } from './harness/stats.js';
import { importCorpus, removeImported, type ImportedBlog } from './importCorpus.js';
import { settle } from './publishBench.js';
import { startBenchServer, type BenchServer } from './serverProcess.js';
import type { BenchRow } from './table.js';

/** The lone writer's creates per mode: ONE_WRITER_ROUNDS runs of ONE_WRITER_RUN, the modes in ABBA order. */
const ONE_WRITER_RUN = 50;
const ONE_WRITER_ROUNDS = 4;
const ONE_WRITER_SAMPLES = ONE_WRITER_RUN * ONE_WRITER_ROUNDS;
/**
 * Creates each lone-writer run makes first, unmeasured: the first publishes after a server start
 * restore the blog's listing and meet the warm-up (their own figure is the publish section's
 * "first publish right after a restart"); at 5% of a run they would be its p95.
 */
const ONE_WRITER_WARM_UP = 5;

interface Run {
  latencies: number[];
  seconds: number;
  /** The server's CPU time over the run, all threads (set where measured). */
  cpuSeconds?: number;
}

/** `writers` loops each creating published posts (corpus bodies, fresh titles) until `seconds` have passed or `perWriter` were made. */
async function writeBurst(
  baseUrl: string,
  blog: ImportedBlog,
  corpus: readonly CorpusPost[],
  options: { writers: number; seconds: number; perWriter: number; tag: string; status?: 'published' | 'draft' },
): Promise<Run> {
  const latencies: number[] = [];
  const started = performance.now();
  const deadline = started + options.seconds * 1000;
  let next = 0;
  const writer = async (w: number): Promise<void> => {
    for (let i = 0; i < options.perWriter && performance.now() < deadline; i++) {
      const source = corpus[next++ % corpus.length]!;
      const body = {
        title: `${source.title} (${options.tag} ${w}-${i})`,
        content: source.body,
        tags: source.tags.slice(0, 5),
        status: options.status ?? 'published',
      };
      const sent = performance.now();
      const res = await fetch(`${baseUrl}/v1/posts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${blog.apiKey}`, 'x-blog-id': blog.blogId, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      await res.text();
      if (res.status !== 201) throw new Error(`create answered ${res.status}`);
      latencies.push(performance.now() - sent);
    }
  };
  await Promise.all(Array.from({ length: options.writers }, (_, w) => writer(w)));
  return { latencies, seconds: (performance.now() - started) / 1000 };
}

const load = (): string =>
  loadavg()
    .slice(0, 2)
    .map((l) => l.toFixed(1))
    .join(' / ');

const ms = (value: number): string => value.toFixed(0);

/** The server's CPU milliseconds per request of the run. */
const perRequestMs = (run: Run): string => (((run.cpuSeconds ?? 0) * 1000) / Math.max(1, run.latencies.length)).toFixed(1);

export async function runBurstBench(posts: number, seconds = 60, writers = 4): Promise<BenchRow[]> {
  const area = `burst (${posts.toLocaleString('en-US')} posts)`;
  const rows: BenchRow[] = [];
  const corpus = loadCorpus(posts);
  const blog = await importCorpus(corpus, 'burst');
  try {
    // The import's first start re-renders the blog; the runs below start from a settled one. Cards
    // off here: with them on, settling waits for 10,000 cards drawn by site_cards jobs (about 20
    // minutes of CPU), which is not what the runs measure; they run with cards on, so each new
    // post's card is drawn beside the burst.
    await settle(blog, { FOLIO_SOCIAL_CARDS: 'off' });
    const modes = [
      ['alone', { FOLIO_PUBLISH_BATCH: '1' }],
      ['coalesced', {}],
    ] as const;
    const onServer = async <T>(env: Record<string, string>, run: (baseUrl: string, server: BenchServer) => Promise<T>): Promise<T> => {
      const server = await startBenchServer({ FOLIO_DATA_DIR: blog.dataDir, FOLIO_RATE_LIMITS: 'off', FOLIO_LOG_LEVEL: 'warn', ...env });
      try {
        return await run(server.baseUrl, server);
      } finally {
        await server.stop();
      }
    };
    /** A burst with the server's CPU time over it. */
    const measured = async (server: BenchServer, burst: () => Promise<Run>): Promise<Run> => {
      const before = await server.cpuSeconds();
      const run = await burst();
      return { ...run, cpuSeconds: (await server.cpuSeconds()) - before };
    };
    // The lone writer of both modes first, so both write into the same blog: a burst adds hundreds
    // of posts to it (and to the current month's page). Its runs alternate between the modes
    // (A B B A, A B B A), so neither gains from going second in a blog that grows as they write
    // or from the machine quietening: one run each, back to back, differed by 1.1–1.3× at p95.
    const ones = new Map<string, Run>(modes.map(([name]) => [name, { latencies: [], seconds: 0 }]));
    for (let round = 0; round < ONE_WRITER_ROUNDS; round++) {
      for (const [name, env] of round % 2 === 0 ? modes : [...modes].reverse()) {
        const run = await onServer(env, async (url) => {
          await writeBurst(url, blog, corpus, { writers: 1, seconds: 600, perWriter: ONE_WRITER_WARM_UP, tag: `${name} warm ${round}` });
          return writeBurst(url, blog, corpus, { writers: 1, seconds: 600, perWriter: ONE_WRITER_RUN, tag: `${name} one ${round}` });
        });
        const pooled = ones.get(name)!;
        pooled.latencies.push(...run.latencies);
        pooled.seconds += run.seconds;
      }
    }
    const results = new Map<string, { one: Run; many: Run; loads: string }>();
    for (const [name, env] of modes) {
      const many = await onServer(env, (url, server) =>
        measured(server, () => writeBurst(url, blog, corpus, { writers, seconds, perWriter: Number.POSITIVE_INFINITY, tag: `${name} many` })),
      );
      results.set(name, { one: ones.get(name)!, many, loads: load() });
    }
    // The anchor of the target: the same writers creating drafts, which publish nothing. What a
    // create costs without its publish bounds what any publishing could reach on this machine.
    const drafts = await onServer({}, (url, server) =>
      measured(server, () => writeBurst(url, blog, corpus, { writers, seconds, perWriter: Number.POSITIVE_INFINITY, tag: 'drafts', status: 'draft' })),
    );
    const draftsLoad = load();
    const alone = results.get('alone')!;
    const coalesced = results.get('coalesced')!;
    const rate = (run: Run): number => run.latencies.length / run.seconds;
    const p95 = (run: Run): number => percentile(run.latencies, 0.95);
    rows.push(
      {
        area,
        measure: `${writers} writers creating published posts for ${seconds} s: publishes/s, coalesced ÷ each job alone (FOLIO_PUBLISH_BATCH=1)`,
        value: `${rate(coalesced.many).toFixed(1)} ÷ ${rate(alone.many).toFixed(1)} = ${(rate(coalesced.many) / rate(alone.many)).toFixed(2)}×`,
        target: '≥ 100 /s',
      },
      {
        area,
        measure: `${writers} writers: p50 / p95, coalesced (each job alone: ${ms(percentile(alone.many.latencies, 0.5))} / ${ms(p95(alone.many))} ms)`,
        value: `${ms(percentile(coalesced.many.latencies, 0.5))} / ${ms(p95(coalesced.many))} ms`,
        target: 'p95 ≤ 300 ms',
      },
      {
        area,
        measure: `one writer, ${ONE_WRITER_SAMPLES} creates (${ONE_WRITER_ROUNDS} runs of ${ONE_WRITER_RUN} per mode, interleaved, each after ${ONE_WRITER_WARM_UP} unmeasured): p95 coalesced ÷ each job alone (p50 ${ms(percentile(coalesced.one.latencies, 0.5))} ÷ ${ms(percentile(alone.one.latencies, 0.5))} ms)`,
        value: `${ms(p95(coalesced.one))} ÷ ${ms(p95(alone.one))} ms = ${(p95(coalesced.one) / p95(alone.one)).toFixed(2)}×`,
        target: 'no worse (≤ 1×, within noise)',
      },
      {
        area,
        measure: `${writers} writers creating drafts for ${seconds} s (nothing published: the create path alone, the ceiling of any publishing here): creates/s; coalesced publishes ÷ it`,
        value: `${rate(drafts).toFixed(1)} /s; ${(rate(coalesced.many) / rate(drafts)).toFixed(2)}×`,
      },
      {
        area,
        measure: `server CPU per request, all threads: published (coalesced) / draft; a 100 /s budget is ${ms(availableParallelism() * 10)} ms of CPU per post on this machine's ${availableParallelism()} cores, the load generator's included`,
        value: `${perRequestMs(coalesced.many)} / ${perRequestMs(drafts)} ms`,
      },
      { area, measure: 'load average (1 / 5 min) after the runs alone / coalesced / drafts', value: `${alone.loads} | ${coalesced.loads} | ${draftsLoad}` },
    );
  } finally {
    removeImported(blog);
  }
  return rows;
}
