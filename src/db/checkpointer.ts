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
}

const DEFAULT_INTERVAL_MS = 500;

/** Another connection of this process whose automatic checkpoints follow `db`'s (the SqlClient's writer). */
export interface AutoCheckpointed {
  setAutoCheckpoint(pages: number): void;
}

export function startCheckpointer(db: Db, file: string, options: { intervalMs?: number; alsoOn?: AutoCheckpointed } = {}): Checkpointer {
  const intervalMs = options.intervalMs ?? DEFAULT_INTERVAL_MS;
  const autoCheckpoint = (pages: number): void => {
    if (db.open) db.pragma(`wal_autocheckpoint = ${pages}`);
    options.alsoOn?.setAutoCheckpoint(pages);
  };
  const script = compiledScript('db/checkpointWorker');
  if (!script || file === ':memory:') return { stop: async () => undefined };
  const data: CheckpointWorkerData = { file, intervalMs };
  const worker = new Worker(script, { workerData: data });
  // A command-line process must be able to exit while the checkpointer sleeps.
  worker.unref();
  autoCheckpoint(0);
  let stopping = false;
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.on('error', () => undefined); // 'exit' follows; handled there
  void exited.then(() => {
    // Without the worker the log would only grow: SQLite's own checkpoints take over again.
    if (!stopping) autoCheckpoint(1000);
  });
  return {
    stop: async () => {
      stopping = true;
      // Referenced again while it stops: a process with nothing else to do (the CLI) would
      // otherwise exit here, with code 13 and its top-level await unsettled, before reporting.
      worker.ref();
      worker.postMessage('stop');
      await exited;
      autoCheckpoint(1000);
    },
  };
}
