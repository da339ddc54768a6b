/**
 * Moves SQLite's WAL checkpoints off the event loop. By default the connection that commits a
 * transaction taking the log past 1,000 pages copies the log into the database file there and
 * then, synchronously: after a large post (whose row with its HTML can be several MB) that
 * would hold every request for the length of the copy. Here the server's
 * connection never checkpoints; a worker thread with its own connection does, every interval.
 * Without a compiled worker (vitest without a build) SQLite's automatic checkpoints stay on.
 */
import { Worker } from 'node:worker_threads';
import type { Db } from './database.js';
import type { CheckpointWorkerData } from './checkpointWorker.js';
import { compiledScript } from '../workers/compiledScript.js';

export interface Checkpointer {
  stop(): Promise<void>;
  /**
   * Stops the worker until `wake` (a server at rest, warmup/rest.ts: its write connection is
   * closed, so it writes nothing to checkpoint). SQLite's own checkpoints stand in meanwhile.
   */
  rest(): Promise<void>;
  /** Starts the worker again after `rest` (the write connection opened); no-op if it runs. */
  wake(): void;
}

const DEFAULT_INTERVAL_MS = 500;

/** Another connection of this process whose automatic checkpoints follow `db`'s (the SqlClient's writer). */
export interface AutoCheckpointed {
  setAutoCheckpoint(pages: number): void;
}

/** Where no worker checkpoints (PostgreSQL, an in-memory database, running from sources). */
export const NO_CHECKPOINTER: Checkpointer = { stop: async () => undefined, rest: async () => undefined, wake: () => undefined };

export function startCheckpointer(db: Db, file: string, options: { intervalMs?: number; alsoOn?: AutoCheckpointed } = {}): Checkpointer {
  const script = compiledScript('db/checkpointWorker');
  if (!script || file === ':memory:') return NO_CHECKPOINTER;
  const checkpointer = new WorkerCheckpointer(db, script, { file, intervalMs: options.intervalMs ?? DEFAULT_INTERVAL_MS }, options.alsoOn);
  checkpointer.wake();
  return checkpointer;
}

interface Running {
  worker: Worker;
  exited: Promise<void>;
  /** Stopped on purpose (rest, stop): its exit is no loss. */
  stopping: boolean;
}

class WorkerCheckpointer implements Checkpointer {
  private running: Running | null = null;
  private stopped = false;

  constructor(
    private readonly db: Db,
    private readonly script: URL,
    private readonly data: CheckpointWorkerData,
    private readonly alsoOn: AutoCheckpointed | undefined,
  ) {}

  wake(): void {
    if (this.running || this.stopped) return;
    const worker = new Worker(this.script, { workerData: this.data });
    // A command-line process must be able to exit while the checkpointer sleeps.
    worker.unref();
    const running: Running = { worker, exited: new Promise<void>((resolve) => worker.once('exit', () => resolve())), stopping: false };
    worker.on('error', () => undefined); // 'exit' follows; handled there
    void running.exited.then(() => {
      if (this.running === running) this.running = null;
      // Without the worker the log would only grow: SQLite's own checkpoints take over again.
      if (!running.stopping) this.autoCheckpoint(1000);
    });
    this.running = running;
    this.autoCheckpoint(0);
  }

  async rest(): Promise<void> {
    const running = this.running;
    if (!running) return;
    running.stopping = true;
    // Referenced again while it stops: a process with nothing else to do (the CLI) would
    // otherwise exit here, with code 13 and its top-level await unsettled, before reporting.
    running.worker.ref();
    running.worker.postMessage('stop');
    await running.exited;
    // Unless a write woke another worker meanwhile, SQLite's own checkpoints take over.
    if (!this.running) this.autoCheckpoint(1000);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.rest();
    this.autoCheckpoint(1000);
  }

  private autoCheckpoint(pages: number): void {
    if (this.db.open) this.db.pragma(`wal_autocheckpoint = ${pages}`);
    this.alsoOn?.setAutoCheckpoint(pages);
  }
}
