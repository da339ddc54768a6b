/**
 * `npm run bench -- --only analytics` (issue #29): counting never slows the rest. The real server
 * in its own process; `GET /v1/posts/:slug` p99 measured alone, then again while 1,000 beacon
 * hits a second arrive on the blog's host from another process (each a new visitor, by X-Forwarded-For behind
 * FOLIO_TRUST_PROXY=on), reported as the ratio of the two (the anchor is the same run's quiet
 * p99). Both loads are paced evenly, open loop (harness/pacedLoad.ts), the API at a fixed rate
 * well below what the server can answer. Also: the longest event-loop block of a flush (from /metrics), and whether every hit
 * reached the API's counts.
 */
import { execFile } from 'node:child_process';
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

/**
 * The beacon load from its own process (analyticsHits.ts), at a lower priority (`nice -n 10`):
 * it stands for readers on other machines, so where it and the server want the same core at
 * once, the server is served first. It still sends every hit on time (the table says so).
 */
function beaconLoad(url: string, host: string, seconds: number): Promise<{ average: number; ok: number; failed: number }> {
  return new Promise((resolve, reject) => {
    execFile('nice', ['-n', '10', process.execPath, HITS, url, host, String(seconds), String(HITS_PER_SECOND)], { maxBuffer: 1024 * 1024 }, (err, stdout) => {
      if (err) reject(err);
      else resolve(JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { average: number; ok: number; failed: number });
    });
  });
}

export async function runAnalyticsBench(seconds = 20): Promise<BenchRow[]> {
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
    // Warm-up, then the quiet anchor and the loaded run, each `seconds` long. The API is read at
    // a fixed rate well below what the server can answer: a latency is only comparable between
    // runs that ask the same of it, while a saturating client would measure the share of a
    // 2-core machine three processes get, not what counting costs a request.
    const measured = { url: server.baseUrl, rate: API_RATE, request: () => api };
    await pacedLoad({ ...measured, seconds: 2 });
    const quiet = await pacedLoad({ ...measured, seconds });
    const [loaded, hits] = await Promise.all([pacedLoad({ ...measured, seconds }), beaconLoad(server.baseUrl, host, seconds)]);
    const load = loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
    // Two flush intervals: everything counted is in SQLite.
    await sleep(11_000);
    const overview = await call('GET', '/v1/analytics/overview', undefined, blog.id);
    const metrics = await (await fetch(`${server.baseUrl}/metrics`)).text();
    const longest = Number(/^folio_analytics_flush_longest_seconds (\S+)/m.exec(metrics)?.[1] ?? Number.NaN);
    const [quietP99, loadedP99] = [percentile(quiet.latencies, 0.99), percentile(loaded.latencies, 0.99)];
    const ratio = loadedP99 / Math.max(quietP99, 0.001);
    return [
      {
        area,
        measure: `GET /v1/posts/:slug p99 ms at ${API_RATE}/s, quiet / with ${HITS_PER_SECOND} hits/s`,
        value: `${quietP99.toFixed(1)} / ${loadedP99.toFixed(1)}`,
      },
      { area, measure: 'p99 ratio (loaded / quiet)', value: `${ratio.toFixed(2)}×`, target: '≤ 1.2×' },
      { area, measure: 'GET /v1/posts/:slug answered, quiet / loaded', value: `${quiet.ok} / ${loaded.ok}` },
      { area, measure: 'beacon hits/s sent (2xx / errors)', value: `${hits.average.toFixed(0)} (${hits.ok} / ${hits.failed})` },
      { area, measure: 'views counted / beacon hits answered', value: `${overview.total_views_30d} / ${hits.ok}` },
      { area, measure: 'longest flush (event-loop block) ms', value: (longest * 1000).toFixed(1), target: '< 100' },
      { area, measure: 'load average (1/5/15 min)', value: load },
    ];
  } finally {
    await server.stop();
  }
}
