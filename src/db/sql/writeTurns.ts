/**
 * One queue of write turns per database connection, shared by the SqliteClient on it and by
 * writeTransaction.ts, the code not yet on the seam: this process's writes take turns instead of
 * meeting SQLite's lock, where the loser would sleep inside SQLite (blocking the event loop for
 * the busy timeout) while the winner's transaction waits for that very loop to go on.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export class WriteTurns {
  /** Settles when the last write asked for so far has ended: the next one waits for it. */
  private tail: Promise<void> = Promise.resolve();
  private readonly holder = new AsyncLocalStorage<true>();

  /** Runs `fn` as the holder of the turn taken: a take() from inside it would wait for itself, and throws instead. */
  hold<T>(fn: () => T): T {
    return this.holder.run(true, fn);
  }

  /** Waits for the writes asked for before this one; the function returned lets the next one go. */
  async take(): Promise<() => void> {
    if (this.holder.getStore())
      throw new Error('a write inside a transaction on the same database would wait for that transaction: write through the transaction');
    const previous = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((resolve) => {
      release = resolve;
    });
    await previous;
    return release;
  }
}

const turns = new WeakMap<object, WriteTurns>();

/** The write turns of writes made for the connection `db` (created on first use). */
export function writeTurnsOf(db: object): WriteTurns {
  let found = turns.get(db);
  if (!found) turns.set(db, (found = new WriteTurns()));
  return found;
}
