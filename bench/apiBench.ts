import autocannon from 'autocannon';
import type { BenchRow } from './table.js';
import { createBenchAccount as createAccount, startBenchServer } from './serverProcess.js';

async function call(baseUrl: string, key: string, method: string, path: string, body?: unknown, blogId?: string): Promise<any> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(blogId ? { 'x-blog-id': blogId } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${await res.text()}`);
  return res.json();
}

function run(opts: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(opts, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

/**
 * API throughput and latency on loopback with autocannon: 50 connections, 10 s per endpoint,
 * auth and rate limiting on. Requests rotate over several enterprise accounts so the hourly
 * budget (100,000) is not what stops a 10-second run.
 */
export async function runApiBench(seconds = 10): Promise<BenchRow[]> {
  const server = await startBenchServer({ FOLIO_RATE_LIMITS: 'on' });
  const rows: BenchRow[] = [];
  try {
    const keys = [0, 1, 2, 3].map(() => createAccount(server.dataDir));
    const owner = keys[0]!;
    const blog = await call(server.baseUrl, owner, 'POST', '/v1/blogs', { slug: 'bench', name: 'Bench' });
    for (let i = 0; i < 50; i += 1) {
      await call(
        server.baseUrl,
        owner,
        'POST',
        '/v1/posts',
        { title: `Bench post ${i}`, content: `# Post ${i}\n\n${'Some text. '.repeat(200)}`, tags: ['bench'] },
        blog.id,
      );
    }
    // Other accounts reach the blog through keys bound to it (same account, separate budgets
    // need separate accounts, so each gets its own blog with the same posts).
    const targets: { key: string; blogId: string }[] = [{ key: owner, blogId: blog.id }];
    for (const [i, key] of keys.slice(1).entries()) {
      const other = await call(server.baseUrl, key, 'POST', '/v1/blogs', { slug: `bench-${i}`, name: 'Bench' });
      await call(server.baseUrl, key, 'POST', '/v1/posts', { title: 'Bench post 0', content: `# Post\n\n${'Some text. '.repeat(200)}` }, other.id);
      targets.push({ key, blogId: other.id });
    }
    const headersFor = (t: { key: string; blogId: string }) => ({
      authorization: `Bearer ${t.key}`,
      'x-blog-id': t.blogId,
      'content-type': 'application/json',
    });
    const scenarios: { name: string; requests: autocannon.Request[] }[] = [
      { name: 'GET /v1/posts/:slug', requests: targets.map((t) => ({ method: 'GET', path: '/v1/posts/bench-post-0', headers: headersFor(t) })) },
      { name: 'GET /v1/posts', requests: targets.map((t) => ({ method: 'GET', path: '/v1/posts?per_page=20', headers: headersFor(t) })) },
      {
        name: 'POST /v1/posts (draft)',
        requests: targets.map((t) => ({
          method: 'POST',
          path: '/v1/posts',
          headers: headersFor(t),
          body: JSON.stringify({ title: 'Load test post', content: `# Load\n\n${'Body text with **markdown**. '.repeat(40)}` }),
        })),
      },
    ];
    for (const scenario of scenarios) {
      const result = await run({ url: server.baseUrl, connections: 50, duration: seconds, requests: scenario.requests });
      const errors = result.non2xx + result.errors + result.timeouts;
      rows.push({
        area: 'api',
        measure: `${scenario.name} req/s`,
        value: result.requests.average.toFixed(0),
        target: scenario.name.startsWith('GET /v1/posts/:slug') ? '≥ 12,000' : '',
      });
      rows.push({
        area: 'api',
        measure: `${scenario.name} p50 / p99 ms`,
        value: `${result.latency.p50} / ${result.latency.p99}`,
        target: scenario.name.startsWith('GET /v1/posts/:slug') ? 'p99 ≤ 10' : '',
      });
      if (errors > 0) rows.push({ area: 'api', measure: `${scenario.name} non-2xx/errors`, value: String(errors) });
    }
    rows.push({ area: 'api', measure: 'server RSS after load MB', value: ((await server.rss()) / 1048576).toFixed(0) });
  } finally {
    await server.stop();
  }
  return rows;
}
