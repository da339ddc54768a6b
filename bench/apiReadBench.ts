/**
 * `npm run bench -- --only api-read`: GET /v1/posts/:slug against its ceiling (issue 12 item 4).
 * Folio (its own process, auth, scopes, rate limits and info logging on) and a bare Koa server
 * answering the same JSON body from one SQLite read of the same database file
 * (anchors/bareKoaPostServer.ts) are driven by the same `wrk` (one thread, 50 connections;
 * much lighter than autocannon on two cores), interleaved A/B in rounds, and compared as ratios.
 * Both answers are checked to be byte-identical before timing.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { loadCorpus } from './corpus.js';
import { freePort } from './harness/ports.js';
import { percentile } from './harness/stats.js';
import { createBenchAccount, startBenchServer } from './serverProcess.js';
import type { BenchRow } from './table.js';

const run = promisify(execFile);
const ANCHOR = fileURLToPath(new URL('./anchors/bareKoaPostServer.js', import.meta.url));
const ROUNDS = 5;
const CONNECTIONS = 50;

export interface WrkResult {
  rps: number;
  p99: number;
  non2xx: number;
}

/** One `wrk` run (one thread, CONNECTIONS connections) against `url`. */
export async function wrk(url: string, headers: Record<string, string>, seconds: number): Promise<WrkResult> {
  const args = ['-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--latency', ...Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]), url];
  const { stdout } = await run('wrk', args, { maxBuffer: 1024 * 1024 });
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1]);
  const p99Match = /\s99%\s+([\d.]+)(us|ms|s)\b/.exec(stdout);
  if (!rps || !p99Match) throw new Error(`wrk output not understood:\n${stdout}`);
  const p99 = Number(p99Match[1]) * (p99Match[2] === 'us' ? 0.001 : p99Match[2] === 's' ? 1000 : 1);
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(stdout)?.[1] ?? 0);
  return { rps, p99, non2xx };
}

async function startAnchor(dbFile: string): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, [ANCHOR, dbFile, String(port)], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('listening') && resolve());
    child.once('exit', (code) => reject(new Error(`anchor exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

const median = (values: number[]): number => percentile(values, 0.5);

export async function runApiReadBench(seconds = 5): Promise<BenchRow[]> {
  const area = 'API read (GET /v1/posts/:slug)';
  const server = await startBenchServer({ FOLIO_RATE_LIMITS: 'on' });
  let anchor: { url: string; child: ChildProcess } | null = null;
  try {
    // One account per round: each round stays well inside the hourly request budget.
    const corpus = loadCorpus(1000);
    const sample = corpus.find((p) => p.lang === 'en' && p.body.length > 8000) ?? corpus[0]!;
    const targets: { key: string; blogId: string }[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const key = createBenchAccount(server.dataDir);
      const post = async (path: string, body: unknown, blogId?: string) => {
        const res = await fetch(`${server.baseUrl}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(blogId ? { 'x-blog-id': blogId } : {}) },
          body: JSON.stringify(body),
        });
        if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
        return (await res.json()) as { id: string };
      };
      const blog = await post('/v1/blogs', { slug: `read-${i}`, name: 'Read bench' });
      await post('/v1/posts', { title: sample.title, slug: 'the-post', content: sample.body, tags: sample.tags.slice(0, 10), status: 'published' }, blog.id);
      targets.push({ key, blogId: blog.id });
    }
    anchor = await startAnchor(join(server.dataDir, 'folio.db'));

    // Same body from both, byte for byte.
    const first = targets[0]!;
    const folioBody = await (
      await fetch(`${server.baseUrl}/v1/posts/the-post`, { headers: { authorization: `Bearer ${first.key}`, 'x-blog-id': first.blogId } })
    ).text();
    const anchorBody = await (await fetch(`${anchor.url}/v1/posts/the-post`, { headers: { 'x-blog-id': first.blogId } })).text();
    if (folioBody !== anchorBody) throw new Error(`the anchor answers another body (${anchorBody.length} vs ${folioBody.length} bytes)`);

    const folio: WrkResult[] = [];
    const bare: WrkResult[] = [];
    for (const [i, target] of targets.entries()) {
      // Alternate which goes first, so neither always runs on the warmer machine.
      const pair = [
        async () => bare.push(await wrk(`${anchor!.url}/v1/posts/the-post`, { 'X-Blog-Id': target.blogId }, seconds)),
        async () =>
          folio.push(await wrk(`${server.baseUrl}/v1/posts/the-post`, { Authorization: `Bearer ${target.key}`, 'X-Blog-Id': target.blogId }, seconds)),
      ];
      for (const step of i % 2 === 0 ? pair : pair.reverse()) await step();
    }
    const errors = folio.reduce((n, r) => n + r.non2xx, 0) + bare.reduce((n, r) => n + r.non2xx, 0);
    if (errors > 0) throw new Error(`${errors} non-2xx answers during the runs`);
    const load = loadavg()
      .map((l) => l.toFixed(1))
      .join(' / ');
    const rps = median(folio.map((r) => r.rps));
    const anchorRps = median(bare.map((r) => r.rps));
    const p99 = median(folio.map((r) => r.p99));
    const anchorP99 = median(bare.map((r) => r.p99));
    return [
      {
        area,
        measure: `body ${(folioBody.length / 1024).toFixed(1)} KB; wrk -t1 -c${CONNECTIONS}, ${ROUNDS} × ${seconds} s interleaved, medians; load ${load}`,
        value: `${rps.toFixed(0)} req/s`,
        target: `anchor ${anchorRps.toFixed(0)} req/s`,
      },
      { area, measure: 'throughput / bare Koa + one SQLite read (same body)', value: `${(rps / anchorRps).toFixed(2)}×`, target: '≥ 0.6×' },
      {
        area,
        measure: 'p99 latency, Folio / bare Koa',
        value: `${p99.toFixed(1)} / ${anchorP99.toFixed(1)} ms`,
        target: `${(p99 / anchorP99).toFixed(1)}× (≤ 3×)`,
      },
    ];
  } finally {
    anchor?.child.kill('SIGTERM');
    await server.stop();
  }
}
