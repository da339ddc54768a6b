import type { Db } from './database.js';

export interface StoredListingSnapshot {
  /** The post_changes position the snapshot is current to. */
  seq: number;
  data: Buffer;
}

/** The `listing_snapshots` table (migration 014): one encoded listing per blog. */
export class ListingSnapshotsRepo {
  private readonly getStmt;
  private readonly putStmt;
  private readonly deleteStmt;

  constructor(db: Db) {
    this.getStmt = db.prepare<[string], { seq: number; data: Buffer }>('SELECT seq, data FROM listing_snapshots WHERE blog_id = ?');
    // Only ever forwards: two processes saving at once keep the later position.
    this.putStmt = db.prepare<[{ blog: string; seq: number; data: Buffer; now: string }]>(
      `INSERT INTO listing_snapshots (blog_id, seq, data, written_at) SELECT @blog, @seq, @data, @now WHERE EXISTS (SELECT 1 FROM blogs WHERE id = @blog)
       ON CONFLICT (blog_id) DO UPDATE SET seq = excluded.seq, data = excluded.data, written_at = excluded.written_at WHERE excluded.seq >= listing_snapshots.seq`,
    );
    this.deleteStmt = db.prepare<[string]>('DELETE FROM listing_snapshots WHERE blog_id = ?');
  }

  get(blogId: string): StoredListingSnapshot | null {
    return this.getStmt.get(blogId) ?? null;
  }

  /** Saves the snapshot unless the blog is gone or a newer one is saved. */
  put(blogId: string, seq: number, data: Buffer, now: string): void {
    this.putStmt.run({ blog: blogId, seq, data, now });
  }

  delete(blogId: string): void {
    this.deleteStmt.run(blogId);
  }
}
