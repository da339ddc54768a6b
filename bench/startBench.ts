/**
 * `npm run bench -- --only start`: cold start to first answer on a data dir of `posts` posts
 * (issue 12 item 5). Folio (`node dist/server/main.js`, the bundle `npm start` runs, folder
 * store) against the bare Koa + better-sqlite3 anchor (anchors/bareKoaPostServer.ts, unbundled,
 * as such a server is usually run) opening the same database: each is spawned with the same node
 * flags (none), polled every 5 ms until it answers HTTP, and stopped; interleaved A/B, medians.
 */
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './harness/ports.js';
import { percentile } from './harness/stats.js';
import type { ImportedBlog } from './importCorpus.js';
import type { BenchRow } from './table.js';

const MAIN = fileURLToPath(new URL('../server/main.js', import.meta.url));
const ANCHOR = fileURLToPath(new URL('./anchors/bareKoaPostServer.js', import.meta.url));
const ROUNDS = 5;

/** Milliseconds from spawn to the first HTTP answer on `path`. */
async function timeToFirstAnswer(args: string[], env: Record<string, string>, port: number, path: string): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: 'ignore' });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited with ${child.exitCode}`);
      const answered = await fetch(`http://127.0.0.1:${port}${path}`).then(
        () => true,
        () => false,
      );
      if (answered) return performance.now() - started;
      if (performance.now() - started > 60_000) throw new Error(`${args.join(' ')}: no answer within 60 s`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
  }
}

const median = (values: number[]): number => percentile(values, 0.5);

export async function runStartBench(blog: ImportedBlog, posts: number): Promise<BenchRow[]> {
  const area = `cold start (${posts.toLocaleString('en')}-post data dir)`;
  const folio: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const port = await freePort();
    const runFolio = async () =>
      folio.push(
        await timeToFirstAnswer([MAIN], { FOLIO_DATA_DIR: blog.dataDir, PORT: String(port), HOST: '127.0.0.1', FOLIO_LOG_LEVEL: 'info' }, port, '/healthz'),
      );
    const runBare = async () => bare.push(await timeToFirstAnswer([ANCHOR, join(blog.dataDir, 'folio.db'), String(port)], {}, port, '/v1/posts/none'));
    for (const step of i % 2 === 0 ? [runFolio, runBare] : [runBare, runFolio]) await step();
  }
  const load = loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ');
  return [
    {
      area,
      measure: `spawn → first HTTP answer, median of ${ROUNDS} interleaved; load ${load}`,
      value: `${median(folio).toFixed(0)} ms`,
      target: `bare Koa ${median(bare).toFixed(0)} ms`,
    },
    { area, measure: 'Folio / bare Koa + better-sqlite3', value: `${(median(folio) / median(bare)).toFixed(2)}×`, target: '≤ 1.5×' },
  ];
}
