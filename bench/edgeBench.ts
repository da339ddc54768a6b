/**
 * Folio behind the shipped Varnish VCL (`npm run bench -- --only edge`), with the 10,000-post
 * blog in an s3rver bucket:
 * - publish → visible through Varnish: from the publish call until the home page read through
 *   the cache shows the new post, against the API's own answer time (the store) as anchor;
 * - read throughput and cache hit ratio with wrk through Varnish over the blog's pages while a
 *   writer publishes once a second, against the same reads with no writer as anchor.
 */
import { spawn, execFileSync } from 'node:child_process';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startS3rver } from './harness/s3rver.js';
import { edgeRequest } from './harness/edgeRequest.js';
import { freePort } from './harness/ports.js';
import { shippedVclFor, startVarnish, type VarnishHandle } from './harness/varnish.js';
import type { CorpusPost } from './corpus.js';
import type { ImportedBlog } from './importCorpus.js';
import { startBenchServer, type BenchServer } from './serverProcess.js';
import type { BenchRow } from './table.js';

const CLI = fileURLToPath(new URL('../src/cliMain.js', import.meta.url));
const READ_SECONDS = 15;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function api(server: BenchServer, blog: ImportedBlog, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${blog.apiKey}`, 'x-blog-id': blog.blogId, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, json: await res.json() };
}

function counters(varnish: VarnishHandle): { hit: number; miss: number } {
  const out = JSON.parse(execFileSync('varnishstat', ['-n', varnish.workdir, '-1', '-j']).toString()) as {
    counters?: Record<string, { value: number }>;
  } & Record<string, { value: number }>;
  const all = out.counters ?? out;
  return { hit: all['MAIN.cache_hit']?.value ?? 0, miss: (all['MAIN.cache_miss']?.value ?? 0) + (all['MAIN.cache_hitmiss']?.value ?? 0) };
}

/** wrk through Varnish over `paths` with the blog's Host, for READ_SECONDS; requests per second. */
function wrk(varnish: VarnishHandle, host: string, paths: string[], dir: string): Promise<number> {
  const script = join(dir, 'paths.lua');
  writeFileSync(
    script,
    `local paths = {${paths.map((p) => JSON.stringify(p)).join(',')}}\nlocal i = 0\nrequest = function()\n  i = i + 1\n  return wrk.format("GET", paths[(i % #paths) + 1], { ["Host"] = "${host}" })\nend\n`,
  );
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', ['-t2', '-c32', `-d${READ_SECONDS}s`, '-s', script, varnish.url], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('exit', (code) => {
      const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
      process.stderr.write(
        `bench: wrk ${out
          .split('\n')
          .filter((l) => /Requests\/sec|requests in|Latency/.test(l))
          .join(' | ')}\n`,
      );
      if (code !== 0 || !rps) reject(new Error(`wrk failed (${code}): ${out.slice(0, 300)}`));
      else resolve(Number(rps[1]));
    });
  });
}

export async function runEdgeBench(blog: ImportedBlog, corpus: readonly CorpusPost[], samples = 100): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'folio-bench-edge-'));
  const s3 = await startS3rver({ buckets: ['folio-sites'] });
  const port = await freePort();
  const host = `${blog.blogSlug}.localhost:${port}`;
  const env = {
    FOLIO_DATA_DIR: blog.dataDir,
    FOLIO_RATE_LIMITS: 'off',
    FOLIO_LOG_LEVEL: 'warn',
    FOLIO_STORAGE: 's3',
    FOLIO_S3_ENDPOINT: s3.endpoint,
    FOLIO_S3_BUCKET: 'folio-sites',
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    FOLIO_SERVICE_DOMAIN: `localhost:${port}`,
    FOLIO_CDN: 'http-purge',
    FOLIO_CDN_PURGE_URL: `http://127.0.0.1:${port}`,
  };
  let server: BenchServer | null = null;
  let varnish: VarnishHandle | null = null;
  try {
    server = await startBenchServer(env);
    const bucket = new URL(s3.endpoint);
    const app = new URL(server.baseUrl);
    varnish = await startVarnish({
      port,
      storageMb: 512,
      vcl: shippedVclFor({ bucket: { host: bucket.hostname, port: Number(bucket.port) }, folio: { host: app.hostname, port: Number(app.port) } }),
    });
    // The whole blog into the bucket, as an operator would after moving to S3.
    const started = performance.now();
    execFileSync(process.execPath, ['--openssl-legacy-provider', CLI, 'site', 'rebuild', blog.blogSlug], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    rows.push({ area: 'edge', measure: `site rebuild into s3rver, ${corpus.length} posts`, value: `${((performance.now() - started) / 1000).toFixed(1)} s` });

    // Publish → visible through the cache.
    const visible: number[] = [];
    const answered: number[] = [];
    for (let i = 0; i < samples; i++) {
      await edgeRequest(port, host, '/');
      const warm = await edgeRequest(port, host, '/');
      if (warm.headers['x-cache'] !== 'HIT') throw new Error('the home page was not cached before the publish');
      const title = `Edge bench ${i} ${Date.now()}`;
      const t0 = performance.now();
      const created = await api(server, blog, 'POST', '/v1/posts', {
        title,
        content: `Published through the edge. ${'Words. '.repeat(200)}`,
        status: 'published',
      });
      if (created.status !== 201) throw new Error(`publish answered ${created.status}`);
      answered.push(performance.now() - t0);
      for (;;) {
        const home = await edgeRequest(port, host, '/');
        if (home.text.includes(title)) break;
        if (performance.now() - t0 > 10_000) throw new Error('a published post did not show through Varnish within 10 s');
      }
      visible.push(performance.now() - t0);
    }
    const ratio = percentile(visible, 95) / percentile(answered, 95);
    rows.push({
      area: 'edge',
      measure: `anchor: publish answered (page in the store) p50 / p95, ${corpus.length} posts`,
      value: `${percentile(answered, 50).toFixed(0)} / ${percentile(answered, 95).toFixed(0)} ms`,
    });
    rows.push({
      area: 'edge',
      measure: 'publish → visible through Varnish p50 / p95',
      value: `${percentile(visible, 50).toFixed(0)} / ${percentile(visible, 95).toFixed(0)} ms (p95 ${ratio.toFixed(2)}× anchor)`,
      target: 'p95 ≤ 150 ms',
    });

    // Reads through the cache: the home page, feeds and 1,000 post pages, warmed first.
    const paths = ['/', '/rss.xml', '/feed.json', '/sitemap.xml', ...corpus.slice(0, 1000).map((p) => `/${encodeURIComponent(p.slug)}`)];
    for (const path of paths) await edgeRequest(port, host, path);
    const quiet = await wrk(varnish, host, paths, dir);
    const before = counters(varnish);
    let writing = true;
    let published = 0;
    const writer = (async () => {
      while (writing) {
        const next = performance.now() + 1000;
        await api(server!, blog, 'POST', '/v1/posts', {
          title: `Writer ${published} ${Date.now()}`,
          content: 'Written during the read benchmark.',
          tags: [corpus[0]!.tags[0] ?? 'x'],
          status: 'published',
        });
        published++;
        await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
      }
    })();
    const busy = await wrk(varnish, host, paths, dir);
    writing = false;
    await writer;
    const after = counters(varnish);
    const hits = after.hit - before.hit;
    const misses = after.miss - before.miss;
    rows.push({ area: 'edge', measure: `anchor: reads/s through Varnish, no writer (wrk -t2 -c32, ${paths.length} paths)`, value: quiet.toFixed(0) });
    rows.push({
      area: 'edge',
      measure: `reads/s through Varnish while publishing once a second (${published} posts)`,
      value: `${busy.toFixed(0)} (${(busy / quiet).toFixed(2)}× anchor)`,
    });
    rows.push({
      area: 'edge',
      measure: 'cache hit ratio while publishing once a second',
      value: `${((100 * hits) / Math.max(1, hits + misses)).toFixed(2)} % (${misses} misses)`,
      target: '≥ 99 %',
    });
    rows.push({ area: 'edge', measure: 'load average during the section (1 min)', value: loadavg()[0]!.toFixed(2) });
  } finally {
    await varnish?.stop();
    await server?.stop();
    await s3.stop();
  }
  return rows;
}
