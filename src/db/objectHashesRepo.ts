import type { Db } from './database.js';

/** Content hashes of the objects the publisher wrote, per blog. */
export class ObjectHashesRepo {
  private readonly getStmt;
  private readonly setStmt;
  private readonly deleteStmt;
  private readonly clearStmt;
  private readonly allStmt;

  constructor(db: Db) {
    this.getStmt = db.prepare<[string, string], { hash: string }>('SELECT hash FROM object_hashes WHERE blog_id = ? AND key = ?');
    this.setStmt = db.prepare(
      'INSERT INTO object_hashes (blog_id, key, hash) VALUES (?, ?, ?) ON CONFLICT (blog_id, key) DO UPDATE SET hash = excluded.hash',
    );
    this.deleteStmt = db.prepare('DELETE FROM object_hashes WHERE blog_id = ? AND key = ?');
    this.clearStmt = db.prepare('DELETE FROM object_hashes WHERE blog_id = ?');
    this.allStmt = db.prepare<[string], { key: string; hash: string }>('SELECT key, hash FROM object_hashes WHERE blog_id = ?');
  }

  get(blogId: string, key: string): string | null {
    return this.getStmt.get(blogId, key)?.hash ?? null;
  }

  all(blogId: string): Map<string, string> {
    return new Map(this.allStmt.all(blogId).map((row) => [row.key, row.hash]));
  }

  set(blogId: string, key: string, hash: string): void {
    this.setStmt.run(blogId, key, hash);
  }

  delete(blogId: string, key: string): void {
    this.deleteStmt.run(blogId, key);
  }

  clear(blogId: string): void {
    this.clearStmt.run(blogId);
  }
}
