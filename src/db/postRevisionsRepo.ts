import type { SqlScope, SqlTransaction } from './sql/sqlClient.js';

/** One revision in a list: no Markdown (migration 022 keeps its size in a column for this). */
export interface RevisionSummary {
  id: string;
  createdAt: string;
  title: string;
  contentLength: number;
}

export interface Revision {
  id: string;
  createdAt: string;
  title: string;
  contentMd: string;
}

/** What deciding whether a change coalesces into the post's newest revision needs of it. */
export interface RevisionHead {
  seq: number;
  keyId: string | null;
  openedAt: string;
  sealed: boolean;
}

export interface NewRevision {
  id: string;
  postId: string;
  keyId: string | null;
  /** Also its `openedAt`: a new revision opens its coalescing window when it is written. */
  createdAt: string;
  sealed: boolean;
  title: string;
  contentMd: string;
}

interface SummaryRow {
  id: string;
  created_at: string;
  title: string;
  content_length: number;
}

/** `post_revisions` (migration 022). Every write runs inside the caller's write transaction. */
export class PostRevisionsRepo {
  constructor(private readonly sql: SqlScope) {}

  /** The same queries inside a transaction. */
  in(tx: SqlTransaction): PostRevisionsRepo {
    return new PostRevisionsRepo(tx);
  }

  /** The post's newest revision, or null when it has none (a post written before migration 022). */
  async newest(postId: string): Promise<RevisionHead | null> {
    const row = await this.sql.get<{ seq: number; key_id: string | null; opened_at: string; sealed: number }>(
      'SELECT seq, key_id, opened_at, sealed FROM post_revisions WHERE post_id = ? ORDER BY seq DESC LIMIT 1',
      [postId],
    );
    return row ? { seq: row.seq, keyId: row.key_id, openedAt: row.opened_at, sealed: row.sealed === 1 } : null;
  }

  async insert(revision: NewRevision): Promise<void> {
    // A new revision opens its coalescing window when it is written: `opened_at` is `created_at`.
    await this.sql.run(
      `INSERT INTO post_revisions (id, post_id, key_id, opened_at, created_at, sealed, title, content_length, content_md)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        revision.id,
        revision.postId,
        revision.keyId,
        revision.createdAt,
        revision.createdAt,
        revision.sealed ? 1 : 0,
        revision.title,
        Buffer.byteLength(revision.contentMd),
        revision.contentMd,
      ],
    );
  }

  /** Coalescing: the revision holds the newer text from now on; its id and window stay. */
  async replace(seq: number, text: { createdAt: string; title: string; contentMd: string }): Promise<void> {
    await this.sql.run('UPDATE post_revisions SET created_at = ?, title = ?, content_length = ?, content_md = ? WHERE seq = ?', [
      text.createdAt,
      text.title,
      Buffer.byteLength(text.contentMd),
      text.contentMd,
      seq,
    ]);
  }

  /** Nothing coalesces into the post's newest revision any more. */
  async sealNewest(postId: string): Promise<void> {
    await this.sql.run(
      'UPDATE post_revisions SET sealed = 1 WHERE seq = (SELECT seq FROM post_revisions WHERE post_id = ? ORDER BY seq DESC LIMIT 1) AND sealed = 0',
      [postId],
    );
  }

  async prune(postId: string, keep: number, daily: number): Promise<void> {
    // Older than the newest `keep`: deleted, but for the last one of each UTC day that has none
    // among the newest, on the most recent `daily` such days. Only the index and the rows' small
    // columns are read.
    await this.sql.run(
      `WITH cut AS (SELECT seq FROM post_revisions WHERE post_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?),
            recent AS (SELECT DISTINCT substr(created_at, 1, 10) AS day FROM post_revisions WHERE post_id = ? AND seq >= (SELECT seq FROM cut)),
            daily AS (SELECT max(seq) AS seq FROM post_revisions
                       WHERE post_id = ? AND seq < (SELECT seq FROM cut) AND substr(created_at, 1, 10) NOT IN (SELECT day FROM recent)
                       GROUP BY substr(created_at, 1, 10) ORDER BY max(seq) DESC LIMIT ?)
       DELETE FROM post_revisions
        WHERE post_id = ? AND seq < coalesce((SELECT seq FROM cut), 0) AND seq NOT IN (SELECT seq FROM daily)`,
      [postId, Math.max(keep - 1, 0), postId, postId, daily, postId],
    );
  }

  /** A page of the post's revisions, newest first, without their Markdown. */
  async list(postId: string, limit: number, offset: number): Promise<{ revisions: RevisionSummary[]; total: number }> {
    const total = (await this.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM post_revisions WHERE post_id = ?', [postId]))?.n ?? 0;
    const rows = await this.sql.all<SummaryRow>(
      'SELECT id, created_at, title, content_length FROM post_revisions WHERE post_id = ? ORDER BY seq DESC LIMIT ? OFFSET ?',
      [postId, limit, offset],
    );
    const revisions = rows.map((row) => ({ id: row.id, createdAt: row.created_at, title: row.title, contentLength: row.content_length }));
    return { revisions, total };
  }

  /** The revision `id` of the post `postId` (another post's revision is not found). */
  async find(postId: string, id: string): Promise<Revision | null> {
    const row = await this.sql.get<{ id: string; created_at: string; title: string; content_md: string }>(
      'SELECT id, created_at, title, content_md FROM post_revisions WHERE id = ? AND post_id = ?',
      [id, postId],
    );
    return row ? { id: row.id, createdAt: row.created_at, title: row.title, contentMd: row.content_md } : null;
  }
}
