import type { SqlClient } from './sql/sqlClient.js';

/** Content hashes of the objects the publisher wrote, per blog. */
export class ObjectHashesRepo {
  constructor(private readonly sql: SqlClient) {}

  async get(blogId: string, key: string): Promise<string | null> {
    return (await this.sql.get<{ hash: string }>('SELECT hash FROM object_hashes WHERE blog_id = ? AND key = ?', [blogId, key]))?.hash ?? null;
  }

  async all(blogId: string): Promise<Map<string, string>> {
    const rows = await this.sql.all<{ key: string; hash: string }>('SELECT key, hash FROM object_hashes WHERE blog_id = ?', [blogId]);
    return new Map(rows.map((row) => [row.key, row.hash]));
  }

  /** Up to `limit` recorded hashes after `afterKey` in key order (keyset paging: '' starts). */
  async page(blogId: string, afterKey: string, limit: number): Promise<[string, string][]> {
    const rows = await this.sql.all<{ key: string; hash: string }>('SELECT key, hash FROM object_hashes WHERE blog_id = ? AND key > ? ORDER BY key LIMIT ?', [
      blogId,
      afterKey,
      limit,
    ]);
    return rows.map((row) => [row.key, row.hash]);
  }

  /** Recorded keys that start with `prefix`. */
  async keysUnder(blogId: string, prefix: string): Promise<string[]> {
    // A range over the primary key's order, not LIKE: a prefix may hold `%` or `_`.
    const rows = await this.sql.all<{ key: string }>('SELECT key FROM object_hashes WHERE blog_id = ? AND key >= ? AND key < ? ORDER BY key', [
      blogId,
      prefix,
      `${prefix}\u{10FFFF}`,
    ]);
    return rows.map((row) => row.key);
  }

  async set(blogId: string, key: string, hash: string): Promise<void> {
    await this.sql.run(SET, [blogId, key, hash]);
  }

  /** Records `[key, hash]` pairs in one transaction (a commit per row made recording a rebuild's 12,000 hashes slow). */
  async setMany(blogId: string, entries: readonly (readonly [string, string])[]): Promise<void> {
    if (entries.length === 0) return;
    await this.sql.transaction(async (tx) => {
      for (const [key, hash] of entries) await tx.run(SET, [blogId, key, hash]);
    });
  }

  async delete(blogId: string, key: string): Promise<void> {
    await this.sql.run(DELETE, [blogId, key]);
  }

  async deleteMany(blogId: string, keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.sql.transaction(async (tx) => {
      for (const key of keys) await tx.run(DELETE, [blogId, key]);
    });
  }

  async clear(blogId: string): Promise<void> {
    await this.sql.run('DELETE FROM object_hashes WHERE blog_id = ?', [blogId]);
  }
}

const SET = 'INSERT INTO object_hashes (blog_id, key, hash) VALUES (?, ?, ?) ON CONFLICT (blog_id, key) DO UPDATE SET hash = excluded.hash';
const DELETE = 'DELETE FROM object_hashes WHERE blog_id = ? AND key = ?';
