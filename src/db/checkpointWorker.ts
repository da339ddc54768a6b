/**
 * Worker thread of the checkpointer (checkpointer.ts): its own connection to the database,
 * copying the write-ahead log back into the database file every interval.
 */
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';

export interface CheckpointWorkerData {
  file: string;
  intervalMs: number;
}

const { file, intervalMs } = workerData as CheckpointWorkerData;
const db = new Database(file);
db.pragma('busy_timeout = 1000');
const timer = setInterval(() => {
  try {
    // PASSIVE never waits for readers or writers: what it cannot copy now, it copies next time.
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // SQLITE_BUSY while another checkpoint (the CLI's) runs: try again next interval.
  }
}, intervalMs);
parentPort?.on('message', (message: unknown) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  db.close();
  parentPort?.close();
});
