/**
 * `npm run bench -- --only analytics` (issue #29): counting never slows the rest. The real server
 * in its own process; `GET /v1/posts/:slug` p99 measured alone and while 1,000 beacon hits a
 * second arrive on the blog's host from another process (each a new visitor, by
 * X-Forwarded-For behind FOLIO_TRUST_PROXY=on), reported as the ratio of the two (the anchor is
 * the same run's quiet p99). Both loads are paced evenly, open loop (harness/pacedLoad.ts), the
 * API at a fixed rate well below what the server can answer.
 *
 * Quiet and loaded windows alternate (Q L L Q, repeated): on this shared VM a neighbour's burst
 * or a slow drift lands on both sides alike instead of on whichever run it happened to meet, and
 * the p99 of each side is taken over all its windows together. Every window is followed by the
 * same pause (SETTLE_MS), so what a loaded window leaves behind (its garbage, the beacon
 * process's exit) is not measured as the next quiet window's. Each pair's own ratio is shown
 * too, so the spread is visible. Also: the longest event-loop block of a flush (from /metrics),
 * and whether every hit reached the API's counts.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { createBenchAccount, startBenchServer } from './serverProcess.js';
import type { BenchRow } from './table.js';
import { pacedLoad } from './harness/pacedLoad.js';
import { percentile } from './harness/stats.js';

const HITS_PER_SECOND = 1_000;
/** The API's request rate in both runs: a busy blog's API, a tenth of what one process answers here. */
const API_RATE = 400;
const HITS = fileURLToPath(new URL('./analyticsHits.js', import.meta.url));
/** The pause after every window, quiet or loaded alike. */
const SETTLE_MS = 2_000;

/**
 * The beacon load from its own process (analyticsHits.ts), at the lowest priority (`nice -n 19`):
 * it stands for readers on other machines, whose CPU is not this one's, so where it and the
 * server want the same core at once, the server is served first. It still sends every hit on
 * time (the table says so).
 * `ready` resolves once its sockets are open: the measured window starts after its start-up.
 */
interface HitCounts {
  average: number;
  ok: number;
  failed: number;
}
function beaconLoad(url: string, host: string, seconds: number): { ready: Promise<void>; done: Promise<HitCounts> } {
  const child = spawn('nice', ['-n', '19', process.execPath, HITS, url, host, String(seconds), String(HITS_PER_SECOND)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    out += chunk;
    if (out.startsWith('ready\n')) markReady();
  });
  const done = new Promise<HitCounts>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      markReady();
      if (code !== 0) reject(new Error(`the beacon generator exited with ${code}`));
      else resolve(JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as HitCounts);
    });
  });
  return { ready, done };
}

export async function runAnalyticsBench(pairs = 8, windowSeconds = 6): Promise<BenchRow[]> {
  const area = 'analytics (beacon load)';
  const port = 3900 + Math.floor(Math.random() * 500);
  const server = await startBenchServer({ FOLIO_RATE_LIMITS: 'off', FOLIO_TRUST_PROXY: 'on' }, port);
  try {
    const key = createBenchAccount(server.dataDir);
    const call = async (method: string, path: string, body?: unknown, blogId?: string): Promise<any> => {
      const res = await fetch(`${server.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(blogId ? { 'x-blog-id': blogId } : {}) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
      return res.json();
    };
    const blog = await call('POST', '/v1/blogs', { slug: 'counted', name: 'Analytics bench' });
    await call('POST', '/v1/posts', { title: 'The post', slug: 'the-post', content: 'Some words. '.repeat(400), status: 'published' }, blog.id);
    const api = { path: '/v1/posts/the-post', headers: { authorization: `Bearer ${key}`, 'x-blog-id': blog.id } };
    const host = `counted.localhost:${port}`;
    // A quiet moment first: the server's warm-up (warmup/startupWarmUp.ts) runs its steps only
    // while no request is in flight, else one every two seconds, and under a steady load its
    // steps (worker threads starting, libraries loading) would land in whichever windows came.
    await sleep(5_000);
    // Warm-up, then quiet and loaded windows in the order Q L L Q, `pairs` times over. The API is
    // read at a fixed rate well below what the server can answer: a latency is only comparable
    // between runs that ask the same of it, while a saturating client would measure the share of
    // a 2-core machine three processes get, not what counting costs a request.
    const measured = { url: server.baseUrl, rate: API_RATE, request: () => api, seconds: windowSeconds };
    await pacedLoad({ ...measured, seconds: 2 });
    const quiet: number[] = [];
    const loaded: number[] = [];
    const pairRatios: number[] = [];
    const answered = { quiet: 0, loaded: 0 };
    const hits: HitCounts = { average: 0, ok: 0, failed: 0 };
    const quietWindow = async (): Promise<number> => {
      const run = await pacedLoad(measured);
      quiet.push(...run.latencies);
      answered.quiet += run.ok;
      await sleep(SETTLE_MS);
      return percentile(run.latencies, 0.99);
    };
    const loadedWindow = async (): Promise<number> => {
      const beacons = beaconLoad(server.baseUrl, host, windowSeconds + 1);
      await beacons.ready;
      const run = await pacedLoad(measured);
      const counts = await beacons.done;
      hits.ok += counts.ok;
      hits.failed += counts.failed;
      loaded.push(...run.latencies);
      answered.loaded += run.ok;
      await sleep(SETTLE_MS);
      return percentile(run.latencies, 0.99);
    };
    for (let pair = 0; pair < pairs; pair += 1) {
      // Q L, then L Q: a drift within the run weighs on both sides alike.
      const [q, l] = pair % 2 === 0 ? [await quietWindow(), await loadedWindow()] : [await loadedWindow(), await quietWindow()].reverse();
      pairRatios.push(l! / Math.max(q!, 0.001));
    }
    hits.average = hits.ok / (pairs * (windowSeconds + 1));
    const load = loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
    // Two flush intervals: everything counted is in SQLite.
    await sleep(11_000);
    const overview = await call('GET', '/v1/analytics/overview', undefined, blog.id);
    const metrics = await (await fetch(`${server.baseUrl}/metrics`)).text();
    const longest = Number(/^folio_analytics_flush_longest_seconds (\S+)/m.exec(metrics)?.[1] ?? Number.NaN);
    const [quietP99, loadedP99] = [percentile(quiet, 0.99), percentile(loaded, 0.99)];
    const ratio = loadedP99 / Math.max(quietP99, 0.001);
    const sortedPairs = [...pairRatios].sort((a, b) => a - b);
    return [
      {
        area,
        measure: `GET /v1/posts/:slug p99 ms at ${API_RATE}/s over ${pairs}×${windowSeconds} s each, quiet / with ${HITS_PER_SECOND} hits/s`,
        value: `${quietP99.toFixed(1)} / ${loadedP99.toFixed(1)}`,
      },
      { area, measure: 'p99 ratio (loaded / quiet, all windows)', value: `${ratio.toFixed(2)}×`, target: '≤ 1.2×' },
      { area, measure: 'p99 ratio of each window pair, lowest … highest', value: sortedPairs.map((r) => `${r.toFixed(2)}×`).join(' ') },
      { area, measure: 'GET /v1/posts/:slug answered, quiet / loaded', value: `${answered.quiet} / ${answered.loaded}` },
      { area, measure: 'beacon hits/s sent (2xx / errors)', value: `${hits.average.toFixed(0)} (${hits.ok} / ${hits.failed})` },
      { area, measure: 'views counted / beacon hits answered', value: `${overview.total_views_30d} / ${hits.ok}` },
      { area, measure: 'longest flush (event-loop block) ms', value: (longest * 1000).toFixed(1), target: '< 100' },
      { area, measure: 'load average (1/5/15 min)', value: load },
    ];
  } finally {
    await server.stop();
  }
}
