/**
 * The pool that keeps heavy work off the event loop must also keep one account from taking it
 * all: an account runs on at most all but one worker, waiting work goes round-robin between
 * accounts, and a task that never ends or a worker that dies costs that task only.
 * Real worker threads, running a small JavaScript worker written by the test.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { FairWorkerPool, TaskTimeoutError, WorkerPoolClosedError } from '../../../src/workers/fairWorkerPool.js';
import { WORKER_READY } from '../../../src/workers/taskWorker.js';

interface Task {
  /** Busy for this long, holding the worker's thread as rendering does. */
  ms?: number;
  label: string;
  fail?: 'throw' | 'exit';
}

const dir = mkdtempSync(join(tmpdir(), 'folio-pool-'));
const script = pathToFileURL(join(dir, 'worker.mjs'));
/** A worker whose modules take a second to load, as a cold one does on a loaded machine. */
const slowStart = pathToFileURL(join(dir, 'slow-start.mjs'));
const body = (startMs: number) => `import { parentPort } from 'node:worker_threads';
const loaded = Date.now() + ${startMs};
while (Date.now() < loaded) {}
parentPort.on('message', ({ id, request }) => {
  if (request.fail === 'exit') process.exit(3);
  if (request.fail === 'throw') return parentPort.postMessage({ id, error: 'Error: ' + request.label });
  const until = Date.now() + (request.ms ?? 0);
  while (Date.now() < until) {}
  parentPort.postMessage({ id, result: request.label });
});
parentPort.postMessage('${WORKER_READY}');
`;
writeFileSync(script, body(0));
writeFileSync(slowStart, body(1_000));

let pool: FairWorkerPool<Task, string> | null = null;
afterEach(async () => {
  await pool?.close();
  pool = null;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function start(size: number, timeoutMs = 10_000): FairWorkerPool<Task, string> {
  pool = new FairWorkerPool<Task, string>({ script, size, timeoutMs });
  return pool;
}

/** Runs the task and records when it finished, in ms since `t0`. */
function timed(p: FairWorkerPool<Task, string>, tenant: string, task: Task, finished: Map<string, number>, t0: number): Promise<string> {
  return p.run(tenant, task).then((label) => {
    finished.set(label, performance.now() - t0);
    return label;
  });
}

describe('FairWorkerPool', () => {
  it('runs tasks on worker threads and returns their results', async () => {
    const p = start(2);
    expect(await Promise.all([p.run('a', { label: 'one' }), p.run('b', { label: 'two' })])).toEqual(['one', 'two']);
  });

  it('starts every worker ahead of the first task when asked (the warm-up), then runs tasks on them', async () => {
    const p = start(3);
    expect(p.stats().workers).toBe(0);
    p.prestart();
    p.prestart();
    expect(p.stats().workers).toBe(3);
    expect(await Promise.all(['x', 'y', 'z', 'w'].map((label) => p.run(label, { label })))).toEqual(['x', 'y', 'z', 'w']);
    expect(p.stats().workers).toBe(3);
  });

  it('stops its workers at rest only when none is busy, and starts them again for the next task', async () => {
    const p = start(2);
    const slow = p.run('a', { ms: 200, label: 'slow' });
    expect(p.stats().workers).toBe(2);
    // A task running: nothing is stopped, and it finishes.
    expect(p.retireIdle()).toBe(false);
    expect(p.stats().workers).toBe(2);
    expect(await slow).toBe('slow');
    expect(p.retireIdle()).toBe(true);
    expect(p.stats().workers).toBe(0);
    expect(await Promise.all([p.run('a', { label: 'again' }), p.run('b', { label: 'too' })])).toEqual(['again', 'too']);
    expect(p.stats().workers).toBe(2);
  });

  it('keeps a worker for other accounts while one account has a queue of slow tasks', async () => {
    const p = start(2);
    const finished = new Map<string, number>();
    const t0 = performance.now();
    const heavy = [1, 2, 3, 4].map((i) => timed(p, 'hog', { ms: 300, label: `hog-${i}` }, finished, t0));
    // Submitted after all of the hog's work: it must not wait for it.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const quick = timed(p, 'other', { ms: 10, label: 'other' }, finished, t0);
    await Promise.all([...heavy, quick]);
    expect(finished.get('other')!).toBeLessThan(finished.get('hog-1')!);
    // One worker at a time for the hog: its four tasks take four turns.
    expect(finished.get('hog-4')!).toBeGreaterThanOrEqual(4 * 300 - 50);
    expect(p.stats()).toEqual({ waiting: 0, running: 0, workers: 2 });
  });

  it('takes waiting tasks round-robin between accounts', async () => {
    const p = start(2);
    const order: string[] = [];
    const run = (tenant: string, label: string, ms = 40) => p.run(tenant, { ms, label }).then((l) => order.push(l));
    // b2 is short: it and a3 can be handed out at nearly the same moment (when c1 and a2 end
    // together), and only a shorter b2 makes finishing order follow the order they were taken.
    const all = [run('a', 'a1'), run('a', 'a2'), run('a', 'a3'), run('b', 'b1'), run('b', 'b2', 10), run('c', 'c1')];
    await Promise.all(all);
    // a1 and b1 start first; then c1 and a2 go before the second task of b, then b2, a3.
    expect(order.indexOf('c1')).toBeLessThan(order.indexOf('a3'));
    expect(order.indexOf('b2')).toBeLessThan(order.indexOf('a3'));
    expect(order.indexOf('b1')).toBeLessThan(order.indexOf('a2'));
  });

  it('gives a one-worker pool to each account in turn', async () => {
    const p = start(1);
    const order: string[] = [];
    await Promise.all([
      p.run('a', { ms: 20, label: 'a1' }).then((l) => order.push(l)),
      p.run('a', { ms: 20, label: 'a2' }).then((l) => order.push(l)),
      p.run('b', { ms: 20, label: 'b1' }).then((l) => order.push(l)),
    ]);
    expect(order).toEqual(['a1', 'b1', 'a2']);
  });

  it('abandons a task that runs past the timeout and keeps serving with a new worker', async () => {
    const p = start(1, 300);
    const stuck = p.run('a', { ms: 60_000, label: 'stuck' });
    await expect(stuck).rejects.toBeInstanceOf(TaskTimeoutError);
    expect(await p.run('b', { label: 'after' })).toBe('after');
  });

  it("counts a task's time limit from when its worker has loaded, not from the thread's start", async () => {
    pool = new FairWorkerPool<Task, string>({ script: slowStart, size: 1, timeoutMs: 300 });
    // The worker loads for a second, longer than the limit; the task itself is instant.
    expect(await pool.run('a', { label: 'first' })).toBe('first');
    // Once loaded, a task past the limit is still abandoned.
    await expect(pool.run('a', { ms: 60_000, label: 'stuck' })).rejects.toBeInstanceOf(TaskTimeoutError);
  });

  it('fails only the task whose worker dies or throws', async () => {
    const p = start(2);
    await expect(p.run('a', { label: 'boom', fail: 'exit' })).rejects.toThrow(/exited/);
    await expect(p.run('a', { label: 'bad input', fail: 'throw' })).rejects.toThrow(/bad input/);
    expect(await Promise.all([p.run('a', { label: 'x' }), p.run('b', { label: 'y' })])).toEqual(['x', 'y']);
  });

  it('rejects waiting and new tasks once closed', async () => {
    const p = start(1);
    const running = p.run('a', { ms: 200, label: 'running' }).catch((err: unknown) => err);
    const waiting = p.run('a', { label: 'waiting' }).catch((err: unknown) => err);
    await p.close();
    expect(await waiting).toBeInstanceOf(WorkerPoolClosedError);
    expect(await running).toBeInstanceOf(Error);
    await expect(p.run('a', { label: 'late' })).rejects.toBeInstanceOf(WorkerPoolClosedError);
    pool = null;
  });
});
