/**
 * `npm run bench -- --only analytics` (issue #29): counting never slows the rest. The real server
 * in its own process; `GET /v1/posts/:slug` p99 measured alone, then again while 1,000 beacon
 * hits a second arrive on the blog's host (each a new visitor, by X-Forwarded-For behind
 * FOLIO_TRUST_PROXY=on), reported as the ratio of the two (the anchor is the same run's quiet
 * p99). Also: the longest event-loop block of a flush (from /metrics), and whether every hit
 * reached the API's counts.
 */
import autocannon from 'autocannon';
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { createBenchAccount, startBenchServer } from './serverProcess.js';
import type { BenchRow } from './table.js';

const HITS_PER_SECOND = 1_000;
const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

function run(opts: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(opts, (err, result) => (err ? reject(err) : resolve(result)));
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
    const api = { method: 'GET' as const, path: '/v1/posts/the-post', headers: { authorization: `Bearer ${key}`, 'x-blog-id': blog.id } };
    const host = `counted.localhost:${port}`;
    let n = 0;
    const beacon: autocannon.Request = {
      method: 'GET',
      path: '/_folio/view.gif?p=the-post',
      setupRequest: (req) => {
        n += 1;
        // A new reader per hit: the worst case for the visitor set.
        const address = `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
        return { ...req, headers: { ...req.headers, host, 'user-agent': CHROME, referer: `http://${host}/the-post`, 'x-forwarded-for': address } };
      },
    };

    // Warm-up, then the quiet anchor and the loaded run, each `seconds` long.
    await run({ url: server.baseUrl, connections: 10, duration: 2, requests: [api] });
    const quiet = await run({ url: server.baseUrl, connections: 10, duration: seconds, requests: [api] });
    const [loaded, hits] = await Promise.all([
      run({ url: server.baseUrl, connections: 10, duration: seconds, requests: [api] }),
      run({ url: server.baseUrl, connections: 20, duration: seconds, overallRate: HITS_PER_SECOND, requests: [beacon] }),
    ]);
    const load = loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
    // Two flush intervals: everything counted is in SQLite.
    await sleep(11_000);
    const overview = await call('GET', '/v1/analytics/overview', undefined, blog.id);
    const metrics = await (await fetch(`${server.baseUrl}/metrics`)).text();
    const longest = Number(/^folio_analytics_flush_longest_seconds (\S+)/m.exec(metrics)?.[1] ?? Number.NaN);
    const ratio = loaded.latency.p99 / Math.max(quiet.latency.p99, 0.001);
    return [
      {
        area,
        measure: `GET /v1/posts/:slug p99 ms, quiet / with ${HITS_PER_SECOND} hits/s`,
        value: `${quiet.latency.p99.toFixed(1)} / ${loaded.latency.p99.toFixed(1)}`,
      },
      { area, measure: 'p99 ratio (loaded / quiet)', value: `${ratio.toFixed(2)}×`, target: '≤ 1.2×' },
      { area, measure: 'GET /v1/posts/:slug req/s, quiet / loaded', value: `${Math.round(quiet.requests.average)} / ${Math.round(loaded.requests.average)}` },
      { area, measure: 'beacon hits/s sent (2xx / errors)', value: `${(hits.requests.average).toFixed(0)} (${hits['2xx']} / ${hits.errors + hits.non2xx})` },
      { area, measure: 'views counted / beacon hits answered', value: `${overview.total_views_30d} / ${hits['2xx']}` },
      { area, measure: 'longest flush (event-loop block) ms', value: (longest * 1000).toFixed(1), target: '< 100' },
      { area, measure: 'load average (1/5/15 min)', value: load },
    ];
  } finally {
    await server.stop();
  }
}
