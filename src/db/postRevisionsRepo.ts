import type { Db } from './database.js';

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
  private readonly insertStmt;
  private readonly replaceStmt;
  private readonly headStmt;
  private readonly sealStmt;
  private readonly pruneStmt;
  private readonly listStmt;
  private readonly countStmt;
  private readonly findStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO post_revisions (id, post_id, key_id, opened_at, created_at, sealed, title, content_length, content_md)
       VALUES (@id, @postId, @keyId, @createdAt, @createdAt, @sealed, @title, @contentLength, @contentMd)`,
    );
    this.replaceStmt = db.prepare(
      'UPDATE post_revisions SET created_at = @createdAt, title = @title, content_length = @contentLength, content_md = @contentMd WHERE seq = @seq',
    );
    this.headStmt = db.prepare<[string], { seq: number; key_id: string | null; opened_at: string; sealed: number }>(
      'SELECT seq, key_id, opened_at, sealed FROM post_revisions WHERE post_id = ? ORDER BY seq DESC LIMIT 1',
    );
    this.sealStmt = db.prepare(
      'UPDATE post_revisions SET sealed = 1 WHERE seq = (SELECT seq FROM post_revisions WHERE post_id = ? ORDER BY seq DESC LIMIT 1) AND sealed = 0',
    );
    // Older than the newest `keep`: deleted, but for the last one of each UTC day that has none
    // among the newest, on the most recent `daily` such days. Only the index and the rows' small
    // columns are read.
    this.pruneStmt = db.prepare(
      `WITH cut AS (SELECT seq FROM post_revisions WHERE post_id = @postId ORDER BY seq DESC LIMIT 1 OFFSET @keep - 1),
            recent AS (SELECT DISTINCT substr(created_at, 1, 10) AS day FROM post_revisions WHERE post_id = @postId AND seq >= (SELECT seq FROM cut)),
            daily AS (SELECT max(seq) AS seq FROM post_revisions
                       WHERE post_id = @postId AND seq < (SELECT seq FROM cut) AND substr(created_at, 1, 10) NOT IN (SELECT day FROM recent)
                       GROUP BY substr(created_at, 1, 10) ORDER BY max(seq) DESC LIMIT @daily)
       DELETE FROM post_revisions
        WHERE post_id = @postId AND seq < coalesce((SELECT seq FROM cut), 0) AND seq NOT IN (SELECT seq FROM daily)`,
    );
    this.listStmt = db.prepare<[string, number, number], SummaryRow>(
      'SELECT id, created_at, title, content_length FROM post_revisions WHERE post_id = ? ORDER BY seq DESC LIMIT ? OFFSET ?',
    );
    this.countStmt = db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM post_revisions WHERE post_id = ?');
    this.findStmt = db.prepare<[string, string], { id: string; created_at: string; title: string; content_md: string }>(
      'SELECT id, created_at, title, content_md FROM post_revisions WHERE id = ? AND post_id = ?',
    );
  }

  /** The post's newest revision, or null when it has none (a post written before migration 022). */
  newest(postId: string): RevisionHead | null {
    const row = this.headStmt.get(postId);
    return row ? { seq: row.seq, keyId: row.key_id, openedAt: row.opened_at, sealed: row.sealed === 1 } : null;
  }

  insert(revision: NewRevision): void {
    this.insertStmt.run({ ...revision, sealed: revision.sealed ? 1 : 0, contentLength: Buffer.byteLength(revision.contentMd) });
  }

  /** Coalescing: the revision holds the newer text from now on; its id and window stay. */
  replace(seq: number, text: { createdAt: string; title: string; contentMd: string }): void {
    this.replaceStmt.run({ seq, ...text, contentLength: Buffer.byteLength(text.contentMd) });
  }

  /** Nothing coalesces into the post's newest revision any more. */
  sealNewest(postId: string): void {
    this.sealStmt.run(postId);
  }

  prune(postId: string, keep: number, daily: number): void {
    this.pruneStmt.run({ postId, keep, daily });
  }

  /** A page of the post's revisions, newest first, without their Markdown. */
  list(postId: string, limit: number, offset: number): { revisions: RevisionSummary[]; total: number } {
    const total = this.countStmt.get(postId)?.n ?? 0;
    const revisions = this.listStmt
      .all(postId, limit, offset)
      .map((row) => ({ id: row.id, createdAt: row.created_at, title: row.title, contentLength: row.content_length }));
    return { revisions, total };
  }

  /** The revision `id` of the post `postId` (another post's revision is not found). */
  find(postId: string, id: string): Revision | null {
    const row = this.findStmt.get(id, postId);
    return row ? { id: row.id, createdAt: row.created_at, title: row.title, contentMd: row.content_md } : null;
  }
}
