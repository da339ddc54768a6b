import type { Db } from './database.js';

/** Content hashes of the objects the publisher wrote, per blog. */
export class ObjectHashesRepo {
  private readonly getStmt;
  private readonly setStmt;
  private readonly deleteStmt;
  private readonly clearStmt;
  private readonly allStmt;
  private readonly pageStmt;
  private readonly underStmt;
  private readonly setManyTx;
  private readonly deleteManyTx;

  constructor(db: Db) {
    this.getStmt = db.prepare<[string, string], { hash: string }>('SELECT hash FROM object_hashes WHERE blog_id = ? AND key = ?');
    this.setStmt = db.prepare('INSERT INTO object_hashes (blog_id, key, hash) VALUES (?, ?, ?) ON CONFLICT (blog_id, key) DO UPDATE SET hash = excluded.hash');
    this.deleteStmt = db.prepare('DELETE FROM object_hashes WHERE blog_id = ? AND key = ?');
    this.clearStmt = db.prepare('DELETE FROM object_hashes WHERE blog_id = ?');
    this.allStmt = db.prepare<[string], { key: string; hash: string }>('SELECT key, hash FROM object_hashes WHERE blog_id = ?');
    this.pageStmt = db.prepare<[string, string, number], { key: string; hash: string }>(
      'SELECT key, hash FROM object_hashes WHERE blog_id = ? AND key > ? ORDER BY key LIMIT ?',
    );
    // A range over the primary key's order, not LIKE: a prefix may hold `%` or `_`.
    this.underStmt = db.prepare<[string, string, string], { key: string }>(
      'SELECT key FROM object_hashes WHERE blog_id = ? AND key >= ? AND key < ? ORDER BY key',
    );
    // One transaction per batch: a commit per row made recording a rebuild's 12,000 hashes slow.
    this.setManyTx = db.transaction((blogId: string, entries: readonly (readonly [string, string])[]) => {
      for (const [key, hash] of entries) this.setStmt.run(blogId, key, hash);
    });
    this.deleteManyTx = db.transaction((blogId: string, keys: readonly string[]) => {
      for (const key of keys) this.deleteStmt.run(blogId, key);
    });
  }

  get(blogId: string, key: string): string | null {
    return this.getStmt.get(blogId, key)?.hash ?? null;
  }

  all(blogId: string): Map<string, string> {
    return new Map(this.allStmt.all(blogId).map((row) => [row.key, row.hash]));
  }

  /** Up to `limit` recorded hashes after `afterKey` in key order (keyset paging: '' starts). */
  page(blogId: string, afterKey: string, limit: number): [string, string][] {
    return this.pageStmt.all(blogId, afterKey, limit).map((row) => [row.key, row.hash]);
  }

  /** Recorded keys that start with `prefix`. */
  keysUnder(blogId: string, prefix: string): string[] {
    return this.underStmt.all(blogId, prefix, `${prefix}\u{10FFFF}`).map((row) => row.key);
  }

  set(blogId: string, key: string, hash: string): void {
    this.setStmt.run(blogId, key, hash);
  }

  /** Records `[key, hash]` pairs in one transaction. */
  setMany(blogId: string, entries: readonly (readonly [string, string])[]): void {
    if (entries.length > 0) this.setManyTx(blogId, entries);
  }

  delete(blogId: string, key: string): void {
    this.deleteStmt.run(blogId, key);
  }

  deleteMany(blogId: string, keys: readonly string[]): void {
    if (keys.length > 0) this.deleteManyTx(blogId, keys);
  }

  clear(blogId: string): void {
    this.clearStmt.run(blogId);
  }
}
