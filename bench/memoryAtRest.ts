/**
 * Memory at rest (issue 31, item 3), for the `soak` section (memorySoakBench.ts): the resident
 * memory of a Folio server on a data dir at its first answer, after its warm-up and after it has
 * rested (warmup/rest.ts: FOLIO_REST_AFTER without a request), against the bare Koa +
 * better-sqlite3 anchor (anchors/bareKoaPostServer.ts) opening the same database after one read.
 * Both are read from /proc (VmRSS), the same way.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './harness/ports.js';
import { startBenchServer, type BenchServer } from './serverProcess.js';

const ANCHOR = fileURLToPath(new URL('./anchors/bareKoaPostServer.js', import.meta.url));
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export async function rssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
}

/** The bare Koa anchor on the data dir's database, after one read: its RSS in bytes. `env`: added to this process's. */
export async function bareKoaRss(dataDir: string, blogId: string, env: Record<string, string> = {}): Promise<number> {
  const port = await freePort();
  const child = spawn(process.execPath, [ANCHOR, join(dataDir, 'folio.db'), String(port)], { stdio: 'ignore', env: { ...process.env, ...env } });
  try {
    for (let tries = 0; ; tries++) {
      const answered = await fetch(`http://127.0.0.1:${port}/v1/posts/none`, { headers: { 'x-blog-id': blogId } }).then(
        () => true,
        () => false,
      );
      if (answered) break;
      if (child.exitCode !== null || tries > 600) throw new Error('the bare Koa anchor did not start');
      await sleep(50);
    }
    await sleep(3000);
    return await rssOf(child.pid!);
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
  }
}

export interface AtRest {
  server: BenchServer;
  firstAnswer: number;
  warm: number;
  rested: number;
}

/**
 * Starts the server on the data dir and reads its RSS at the first answer, once its warm-up is
 * done and once it has rested; no request reaches it meanwhile. Returns the server, at rest.
 */
export async function serverAtRest(env: Record<string, string>, restAfterSeconds: number): Promise<AtRest> {
  const server = await startBenchServer({ ...env, FOLIO_REST_AFTER: String(restAfterSeconds) });
  const firstAnswer = await rssOf(server.pid);
  // The warm-up starts a second after the first answer and loads a big blog's index in a few.
  await sleep(Math.min(10_000, (restAfterSeconds * 1000) / 2));
  const warm = await rssOf(server.pid);
  // A rest comes at most half the quiet time after it is due (the check's period), and V8's
  // memory reducer gives back the heap the rest freed about 8 s after that: measured once both
  // are over, as a server at rest stays.
  await sleep(restAfterSeconds * 1500 + 15_000);
  const rested = await rssOf(server.pid);
  return { server, firstAnswer, warm, rested };
}
