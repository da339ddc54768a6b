import type { SqlWriter } from './sql/sqlClient.js';

export interface StoredListingSnapshot {
  /** The post_changes position the snapshot is current to. */
  seq: number;
  data: Buffer;
}

/** The `listing_snapshots` table (migration 014): one encoded listing per blog. */
export class ListingSnapshotsRepo {
  constructor(private readonly sql: SqlWriter) {}

  async get(blogId: string): Promise<StoredListingSnapshot | null> {
    return (await this.sql.get<StoredListingSnapshot>('SELECT seq, data FROM listing_snapshots WHERE blog_id = ?', [blogId])) ?? null;
  }

  /** Saves the snapshot unless the blog is gone or a newer one is saved. */
  async put(blogId: string, seq: number, data: Buffer, now: string): Promise<void> {
    // Only ever forwards: two processes saving at once keep the later position.
    await this.sql.run(
      `INSERT INTO listing_snapshots (blog_id, seq, data, written_at) SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM blogs WHERE id = ?)
       ON CONFLICT (blog_id) DO UPDATE SET seq = excluded.seq, data = excluded.data, written_at = excluded.written_at WHERE excluded.seq >= listing_snapshots.seq`,
      [blogId, seq, data, now, blogId],
    );
  }

  async delete(blogId: string): Promise<void> {
    await this.sql.run('DELETE FROM listing_snapshots WHERE blog_id = ?', [blogId]);
  }
}
