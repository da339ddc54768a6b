/**
 * One queue of write turns per database connection, shared by every SqliteClient built on it
 * (each opens a write connection of its own): this process's writes take turns instead of
 * meeting SQLite's lock, where the loser would sleep inside SQLite (blocking the event loop for
 * the busy timeout) while the winner's transaction waits for that very loop to go on.
 */
export class WriteTurns {
  /** Settles when the last write asked for so far has ended: the next one waits for it. */
  private tail: Promise<void> = Promise.resolve();

  /** Waits for the writes asked for before this one; the function returned lets the next one go. */
  async take(): Promise<() => void> {
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
