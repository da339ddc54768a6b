/**
 * Write transactions that wait for SQLite's write lock without blocking the event loop.
 *
 * better-sqlite3 is synchronous: with a busy timeout, a writer whose lock another process holds
 * (the `folio` CLI, a backup, an operator's sqlite3 shell) sleeps inside SQLite, and the whole
 * server sleeps with it — five seconds, then a 500. The server's connection therefore waits only
 * a few milliseconds in SQLite (database.ts SERVER_BUSY_TIMEOUT_MS); here the transaction is
 * retried after timers instead, and after WRITE_WAIT_MS the SQLITE_BUSY error is left to the
 * HTTP layer, which answers 503 with Retry-After.
 *
 * Retrying is safe because a transaction function is synchronous and all-or-nothing, and
 * BEGIN IMMEDIATE takes the lock before the function runs.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { isDatabaseBusy, type Db } from './database.js';
import { writeTurnsOf } from './sql/writeTurns.js';

export const WRITE_WAIT_MS = 5_000;

export async function writeTransaction<T>(db: Db, fn: () => T, maxWaitMs = WRITE_WAIT_MS): Promise<T> {
  // In this process's order with the SqlClient's writes on the same file (sql/writeTurns.ts).
  const release = await writeTurnsOf(db).take();
  try {
    const deadline = Date.now() + maxWaitMs;
    for (let attempt = 0; ; attempt++) {
      try {
        return db.transaction(fn).immediate();
      } catch (err) {
        if (!isDatabaseBusy(err) || Date.now() >= deadline) throw err;
        await sleep(Math.min(100, 5 * 2 ** attempt));
      }
    }
  } finally {
    release();
  }
}
