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
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { FairWorkerPool, TaskTimeoutError, WorkerPoolClosedError } from '../../../src/workers/fairWorkerPool.js';
import { WORKER_READY } from '../../../src/workers/taskWorker.js';

interface Task {
  /** Busy for this long, holding the worker's thread as rendering does. */
  ms?: number;
  label: string;
  fail?: 'throw' | 'exit';
  /** A gate (see `gates`): the task marks its slot started, then holds its worker until released. */
  gate?: { buffer: SharedArrayBuffer; index: number };
}

const dir = mkdtempSync(join(tmpdir(), 'folio-pool-'));
const script = pathToFileURL(join(dir, 'worker.mjs'));
/** A worker whose modules take a second to load, as a cold one does on a loaded machine. */
const slowStart = pathToFileURL(join(dir, 'slow-start.mjs'));
// A task labelled 'thread' answers with its worker's thread id.
const body = (startMs: number) => `import { parentPort, threadId } from 'node:worker_threads';
const loaded = Date.now() + ${startMs};
while (Date.now() < loaded) {}
parentPort.on('message', ({ id, request }) => {
  if (request.fail === 'exit') process.exit(3);
  if (request.fail === 'throw') return parentPort.postMessage({ id, error: 'Error: ' + request.label });
  if (request.gate) {
    const cells = new Int32Array(request.gate.buffer);
    Atomics.store(cells, request.gate.index, 1);
    while (Atomics.load(cells, request.gate.index) !== 2) Atomics.wait(cells, request.gate.index, 1, 50);
  }
  const until = Date.now() + (request.ms ?? 0);
  while (Date.now() < until) {}
  parentPort.postMessage({ id, result: request.label === 'thread' ? String(threadId) : request.label });
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

/**
 * Tasks that each hold their worker until the test releases them, so the order the pool hands
 * tasks out is observed step by step, whatever the machine's load does to timing.
 */
function gates(labels: readonly string[]) {
  const buffer = new SharedArrayBuffer(4 * labels.length);
  const cells = new Int32Array(buffer);
  const index = (label: string): number => labels.indexOf(label);
  const started = (): string[] => labels.filter((label) => Atomics.load(cells, index(label)) !== 0);
  return {
    task: (label: string): Task => ({ label, gate: { buffer, index: index(label) } }),
    started,
    /** Waits until exactly `count` tasks have started, and returns them. */
    async startedCount(count: number): Promise<string[]> {
      const deadline = Date.now() + 20_000;
      while (started().length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
      // A moment more: a task that should not start yet would show now.
      await new Promise((resolve) => setTimeout(resolve, 30));
      return started();
    },
    release(label: string): void {
      Atomics.store(cells, index(label), 2);
      Atomics.notify(cells, index(label));
    },
  };
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

  it('stops its workers once idle for idleMs, never while a task runs, and starts them again for the next task', async () => {
    const p = new FairWorkerPool<Task, string>({ script, size: 2, timeoutMs: 10_000, idleMs: 150 });
    pool = p;
    const g = gates(['held']);
    const held = p.run('a', g.task('held'));
    expect(await g.startedCount(1)).toEqual(['held']);
    // Several idle periods pass while the task holds its worker: nothing is stopped.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(p.stats()).toEqual({ waiting: 0, running: 1, workers: 2 });
    g.release('held');
    expect(await held).toBe('held');
    // Nothing left to do: the workers go once the idle period has passed.
    await vi.waitFor(() => expect(p.stats().workers).toBe(0), { timeout: 10_000, interval: 20 });
    expect(await Promise.all([p.run('a', { label: 'again' }), p.run('b', { label: 'too' })])).toEqual(['again', 'too']);
    expect(p.stats().workers).toBe(2);
    // Started ahead of any task (the warm-up), they go too when none comes.
    await vi.waitFor(() => expect(p.stats().workers).toBe(0), { timeout: 10_000, interval: 20 });
    p.prestart();
    expect(p.stats().workers).toBe(2);
    await vi.waitFor(() => expect(p.stats().workers).toBe(0), { timeout: 10_000, interval: 20 });
  });

  it('replaces its workers on recycle: an idle one at once, a busy one when its task ends', async () => {
    const p = start(2);
    const g = gates(['held']);
    const held = p.run('a', g.task('held'));
    expect(await g.startedCount(1)).toEqual(['held']);
    const idle = await p.run('b', { label: 'thread' });
    p.recycle();
    // The idle worker is gone; the busy one finishes its task first.
    expect(p.stats()).toEqual({ waiting: 0, running: 1, workers: 1 });
    g.release('held');
    expect(await held).toBe('held');
    expect(p.stats().workers).toBe(0);
    // The next tasks start fresh workers.
    const fresh = await Promise.all([p.run('a', { label: 'thread' }), p.run('b', { label: 'thread' })]);
    expect(fresh).not.toContain(idle);
    expect(new Set(fresh).size).toBe(2);
    expect(p.stats().workers).toBe(2);
  });

  it('keeps its workers between tasks when no idleMs is set', async () => {
    const p = start(2);
    expect(await p.run('a', { label: 'one' })).toBe('one');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(p.stats().workers).toBe(2);
  });

  it('keeps a worker for other accounts while one account has a queue of slow tasks', async () => {
    const p = start(2);
    const g = gates(['hog-1', 'hog-2', 'hog-3', 'hog-4', 'other']);
    const heavy = [1, 2, 3, 4].map((i) => p.run('hog', g.task(`hog-${i}`)));
    // The hog has one worker of two, even with both free and four tasks waiting.
    expect(await g.startedCount(1)).toEqual(['hog-1']);
    // Submitted after all of the hog's work, it takes the free worker at once.
    const quick = p.run('other', g.task('other'));
    expect(await g.startedCount(2)).toEqual(['hog-1', 'other']);
    g.release('other');
    await quick;
    // A free worker still does not give the hog a second one: its tasks take turns.
    expect(await g.startedCount(2)).toEqual(['hog-1', 'other']);
    for (const i of [1, 2, 3]) {
      g.release(`hog-${i}`);
      expect(await g.startedCount(3 + i - 1)).toContain(`hog-${i + 1}`);
      expect(p.stats().running).toBe(1);
    }
    g.release('hog-4');
    await Promise.all(heavy);
    expect(p.stats()).toEqual({ waiting: 0, running: 0, workers: 2 });
  });

  it('takes waiting tasks round-robin between accounts', async () => {
    const p = start(2);
    const g = gates(['a1', 'a2', 'a3', 'b1', 'b2', 'c1']);
    const done: string[] = [];
    const run = (tenant: string, label: string) => p.run(tenant, g.task(label)).then((result) => done.push(result));
    const all = [run('a', 'a1'), run('a', 'a2'), run('a', 'a3'), run('b', 'b1'), run('b', 'b2'), run('c', 'c1')];
    // One worker per account while others wait: a1 and b1 first.
    expect(await g.startedCount(2)).toEqual(['a1', 'b1']);
    // a1's worker goes to c, the account not served yet, before a's second task.
    g.release('a1');
    expect(await g.startedCount(3)).toEqual(['a1', 'b1', 'c1']);
    // Then a (served before b), then b, then a again.
    g.release('b1');
    expect(await g.startedCount(4)).toEqual(['a1', 'a2', 'b1', 'c1']);
    g.release('c1');
    expect(await g.startedCount(5)).toEqual(['a1', 'a2', 'b1', 'b2', 'c1']);
    g.release('a2');
    expect(await g.startedCount(6)).toEqual(['a1', 'a2', 'a3', 'b1', 'b2', 'c1']);
    g.release('b2');
    g.release('a3');
    await Promise.all(all);
    expect(done).toHaveLength(6);
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
