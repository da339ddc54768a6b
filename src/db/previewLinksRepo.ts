import type { SqlWriter } from './sql/sqlClient.js';

export interface NewPreviewLink {
  tokenHash: string;
  postId: string;
  createdAt: string;
  expiresAt: string;
}

/** `preview_links` (migration 023): only tokens' hashes; rows go with their post (ON DELETE CASCADE). */
export class PreviewLinksRepo {
  constructor(private readonly sql: SqlWriter) {}

  /** The same queries inside a transaction. */
  in(tx: SqlWriter): PreviewLinksRepo {
    return new PreviewLinksRepo(tx);
  }

  /**
   * Also drops the post's expired links, so a post's rows stay as many as its live links. False
   * when the post is gone (deleted since the caller read it): nothing was written.
   */
  async insert(link: NewPreviewLink): Promise<boolean> {
    await this.sql.run('DELETE FROM preview_links WHERE post_id = ? AND expires_at <= ?', [link.postId, link.createdAt]);
    const { changes } = await this.sql.run(
      'INSERT INTO preview_links (token_hash, post_id, created_at, expires_at) SELECT ?, id, ?, ? FROM posts WHERE id = ?',
      [link.tokenHash, link.createdAt, link.expiresAt, link.postId],
    );
    return changes === 1;
  }

  /** The post a live (unexpired at `now`) token opens, or null. */
  async postOf(tokenHash: string, now: string): Promise<string | null> {
    const row = await this.sql.get<{ post_id: string }>('SELECT post_id FROM preview_links WHERE token_hash = ? AND expires_at > ?', [tokenHash, now]);
    return row?.post_id ?? null;
  }

  /** Deletes every link of the post; how many there were. */
  async revokeAll(postId: string): Promise<number> {
    return (await this.sql.run('DELETE FROM preview_links WHERE post_id = ?', [postId])).changes;
  }
}
