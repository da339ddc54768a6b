/**
 * Lookups that every API request repeats (the key by its hash, the blog by id) kept in memory
 * for as long as the database has not changed: the cache is valid while this connection has
 * written nothing (SQLite's total_changes()) and no other connection, in this process or another
 * (the `folio` CLI revoking a key), has committed (PRAGMA data_version). Any write anywhere empties
 * it, so a revocation, a deletion or a plan change takes effect on the very next request. Asking
 * both costs about a third of one indexed read, and nothing is parsed again.
 *
 * Values are frozen: a caller that changed a cached object would change every later answer.
 */
import type { Db } from './database.js';

/**
 * What a cache asks before answering from memory: a value that changes whenever anything was
 * written. SQLite's is DbVersion; a database shared by several processes needs its own.
 */
export interface ChangeVersion {
  /** Inside a transaction on this connection: reads may see what a rollback undoes. */
  inTransaction(): boolean;
  current(): string;
  /**
   * Where other processes' commits reach this one only later (PostgreSQL's notices): resolves
   * once every change committed before the call is counted by current(). Absent where current()
   * already sees them (SQLite).
   */
  settle?(): Promise<void>;
}

export class DbVersion implements ChangeVersion {
  private readonly dataVersion;
  private readonly totalChanges;

  constructor(private readonly db: Db) {
    this.dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
    this.totalChanges = db.prepare<[], number>('SELECT total_changes()').pluck();
  }

  /**
   * Inside a transaction reads may see what a rollback will undo, and total_changes() does not
   * go back down after one: such reads neither use nor fill the cache.
   */
  inTransaction(): boolean {
    return this.db.inTransaction;
  }

  /**
   * Changes whenever anything was written since the last call that returned the same value.
   * Other connections' commits are asked for once per synchronous run of code (a request's
   * middleware chain up to its first real wait): a commit landing during that run is concurrent
   * with the request anyway. This connection's own writes are counted on every call.
   */
  current(): string {
    if (this.remote === undefined) {
      this.remote = this.dataVersion.get()!;
      queueMicrotask(() => {
        this.remote = undefined;
      });
    }
    return `${this.remote}:${this.totalChanges.get()!}`;
  }

  private remote: number | undefined;
}

export class VersionedCache<V> {
  private version = '';
  private readonly entries = new Map<string, V>();

  constructor(
    private readonly changes: ChangeVersion,
    private readonly maxEntries = 10_000,
  ) {}

  async get(key: string, load: () => Promise<V>): Promise<V> {
    if (this.changes.inTransaction()) return load();
    let version = this.changes.current();
    // Settled only before answering from memory: a miss reads the database anyway.
    if (this.changes.settle && version === this.version && this.entries.has(key)) {
      await this.changes.settle();
      version = this.changes.current();
    }
    if (version !== this.version) {
      this.entries.clear();
      this.version = version;
    } else if (this.entries.has(key)) {
      return this.entries.get(key)!;
    }
    const value = deepFreeze(await load());
    // Kept only if nothing was written since the load began: else it may be older than the write.
    if (this.version !== version || this.changes.current() !== version) return value;
    // A bound, not an LRU: on overflow start again (a key is one small object).
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, value);
    return value;
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
