/**
 * Runs a snapshot (snapshotCopy.ts) on a worker thread of its own: the copy, SQLite's integrity
 * check and gzip of a large database take seconds of CPU, none of it on the event loop.
 * A snapshot is rare (hourly, or an operator's command), so the thread is started for it and
 * ends with it. Without a compiled worker (vitest without a build) it runs in place.
 */
import { Worker } from 'node:worker_threads';
import { compiledScript } from '../workers/compiledScript.js';
import { makeSnapshot, SnapshotError, type SnapshotJob, type SnapshotResult, type SnapshotStep } from './snapshotCopy.js';
import type { SnapshotMessage } from './snapshotWorker.js';

export async function takeSnapshot(job: SnapshotJob, step: SnapshotStep = 'whole'): Promise<SnapshotResult> {
  const script = compiledScript('backup/snapshotWorker');
  if (!script) return makeSnapshot(job, step);
  const worker = new Worker(script, { workerData: { job, step } });
  return new Promise<SnapshotResult>((resolve, reject) => {
    let settled = false;
    worker.once('message', (message: SnapshotMessage) => {
      settled = true;
      if (message.ok) resolve(message.result);
      else reject(new SnapshotError(message.message, message.code));
    });
    worker.once('error', (err) => {
      settled = true;
      reject(err);
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new SnapshotError(`the snapshot thread exited with code ${code} before it finished`));
    });
  });
}
