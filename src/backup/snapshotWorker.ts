/** Worker thread of one snapshot (snapshot.ts): makes it and posts the outcome back. */
import { constants, setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { makeSnapshot, SnapshotError, type SnapshotJob, type SnapshotStep } from './snapshotCopy.js';

export type SnapshotMessage = { ok: true; result: ReturnType<typeof makeSnapshot> } | { ok: false; message: string; code: string | undefined };

// As the heavy pool's workers do (src/heavyWork/heavyWorker.ts): the event loop gets a core first.
try {
  setPriority(constants.priority.PRIORITY_LOW);
} catch {
  // not permitted here: run at normal priority
}

let message: SnapshotMessage;
try {
  const { job, step } = workerData as { job: SnapshotJob; step: SnapshotStep };
  message = { ok: true, result: makeSnapshot(job, step) };
} catch (err) {
  // Posted as plain data: an Error crossing threads keeps its message but not its class or code.
  const code = err instanceof SnapshotError ? err.code : typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : undefined;
  message = { ok: false, message: err instanceof Error ? err.message : String(err), code };
}
parentPort?.postMessage(message);
