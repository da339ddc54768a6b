/**
 * The summaries a listing restored from a snapshot reads when a page first needs a post's slug or
 * title (publish/listing/lazySummary.ts). Those reads happen in the middle of a render, inside
 * property getters, so they must answer synchronously: only SQLite, in this process, can. On
 * PostgreSQL there is no such reader, and a listing is read whole instead of restored
 * (ListingCache without `lazy`).
 */
import type { Db } from './database.js';
import { SUMMARY_AT_SQL, SUMMARY_COLUMNS, SUMMARY_FROM_SQL, toSummary, type PublishedSummary, type SummaryRow } from './siteRows.js';

/** A post's place in a blog's listing. */
type Ordered = { publishedAt: string; id: string };

export class SqliteSummaryReader {
  private readonly fromStmt;
  private readonly atStmt;
  private readonly anyStmt;

  constructor(db: Db) {
    this.fromStmt = db.prepare<[string, string, string, number], SummaryRow>(SUMMARY_FROM_SQL);
    this.atStmt = db.prepare<[string, string], SummaryRow>(SUMMARY_AT_SQL);
    this.anyStmt = db.prepare<[string], SummaryRow>(`SELECT ${SUMMARY_COLUMNS} FROM posts WHERE id = ?`);
  }

  /** Up to `limit` published summaries from a (published_at, id) position on, that one included. */
  publishedSummariesFrom(blogId: string, from: Ordered, limit: number): PublishedSummary[] {
    return this.fromStmt.all(blogId, from.publishedAt, from.id, limit).map(toSummary);
  }

  /** The published summaries of these posts (found by their place), in no particular order. */
  publishedSummariesAt(blogId: string, posts: readonly Ordered[]): PublishedSummary[] {
    return this.atStmt.all(JSON.stringify(posts.map((post) => [post.publishedAt, post.id])), blogId).map(toSummary);
  }

  /** The post's summary whatever its status (published_at as it was when it left the site); null once the row is gone. */
  summaryOfAnyStatus(postId: string): PublishedSummary | null {
    const row = this.anyStmt.get(postId);
    return row ? toSummary(row) : null;
  }
}
