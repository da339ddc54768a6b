import type { Db } from './database.js';

export interface NewPreviewLink {
  tokenHash: string;
  postId: string;
  createdAt: string;
  expiresAt: string;
}

/** `preview_links` (migration 023): only tokens' hashes; rows go with their post (ON DELETE CASCADE). */
export class PreviewLinksRepo {
  private readonly insertStmt;
  private readonly findStmt;
  private readonly revokeStmt;
  private readonly pruneStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare(
      'INSERT INTO preview_links (token_hash, post_id, created_at, expires_at) VALUES (@tokenHash, @postId, @createdAt, @expiresAt)',
    );
    this.findStmt = db.prepare<[string, string], { post_id: string }>('SELECT post_id FROM preview_links WHERE token_hash = ? AND expires_at > ?');
    this.revokeStmt = db.prepare<[string]>('DELETE FROM preview_links WHERE post_id = ?');
    this.pruneStmt = db.prepare<[string, string]>('DELETE FROM preview_links WHERE post_id = ? AND expires_at <= ?');
  }

  /** Also drops the post's expired links, so a post's rows stay as many as its live links. */
  insert(link: NewPreviewLink): void {
    this.pruneStmt.run(link.postId, link.createdAt);
    this.insertStmt.run(link);
  }

  /** The post a live (unexpired at `now`) token opens, or null. */
  postOf(tokenHash: string, now: string): string | null {
    return this.findStmt.get(tokenHash, now)?.post_id ?? null;
  }

  /** Deletes every link of the post; how many there were. */
  revokeAll(postId: string): number {
    return this.revokeStmt.run(postId).changes;
  }
}
