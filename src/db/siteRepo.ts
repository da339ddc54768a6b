import type { Post } from '../domain/post.js';
import { toPost } from './postRows.js';
import {
  ENCODED_COLUMNS,
  ENCODED_COLUMNS_PG,
  PAGE_COLUMNS,
  SOURCE_COLUMNS,
  SUMMARY_COLUMNS,
  SUMMARY_PAGE_SQL,
  toEncodedPost,
  toSummary,
  type EncodedPost,
  type EncodedRow,
  type PublishedSummary,
  type SummaryRow,
} from './siteRows.js';
import type { SqlScope } from './sql/sqlClient.js';

export type { EncodedPost, PublishedSummary } from './siteRows.js';
export { SUMMARY_AT_SQL, SUMMARY_COLUMN_NAMES, SUMMARY_PAGE_SQL } from './siteRows.js';

type PostRowOf = Parameters<typeof toPost>[0];

// A list of ids is one parameter, a JSON array: SQLite's json_each, PostgreSQL's
// json_array_elements_text (the parameter is text, cast to json).
const IDS_SQLITE = 'SELECT value FROM json_each(?)';
const IDS_PG = 'SELECT value FROM json_array_elements_text(?::json)';
// octet_length() reads the length from the record header, not the text (PostgreSQL: from the
// varlena header, without detoasting).
const bodyBytes = (ids: string) => `SELECT id, octet_length(content_html) + octet_length(content_md) AS bytes FROM posts WHERE id IN (${ids})`;
const IDS_PAGE_SQL = `SELECT id, published_at FROM posts WHERE blog_id = ? AND status = 'published' AND (published_at, id) > (?, ?) ORDER BY published_at, id LIMIT ?`;
// Feeds carry HTML only up to a size (publish/render/feeds.ts): larger bodies are not even read,
// and octet_length() answers from the record header without loading the text.
const NEWEST_SQL = `SELECT id, blog_id, title, slug, CASE WHEN text_counts IS NULL THEN content_md ELSE '' END AS content_md,
        CASE WHEN octet_length(content_html) <= ? THEN content_html ELSE '' END AS content_html,
        meta_description, meta_explicit, og_image_url, tags, status, published_at, scheduled_at, created_at, updated_at, text_counts
   FROM posts WHERE blog_id = ? AND status = 'published' ORDER BY published_at DESC, id DESC LIMIT ?`;
const REDIRECTS_SQL = `SELECT r.old_slug, p.slug, p.status FROM post_redirects r JOIN posts p ON p.id = r.post_id WHERE r.blog_id = ?
 UNION ALL SELECT a.path AS old_slug, p.slug, p.status FROM post_aliases a JOIN posts p ON p.id = a.post_id WHERE a.blog_id = ?
 ORDER BY old_slug`;
const REDIRECTS_OF_POST_SQL = 'SELECT old_slug FROM post_redirects WHERE post_id = ? UNION ALL SELECT path AS old_slug FROM post_aliases WHERE post_id = ?';
const PUBLISHED_SUMMARY_SQL = `SELECT ${SUMMARY_COLUMNS} FROM posts WHERE id = ? AND status = 'published'`;
const PUBLISHED_SUMMARY_AT_SQL = `SELECT ${SUMMARY_COLUMNS} FROM posts WHERE blog_id = ? AND slug = ? AND status = 'published'`;
const published = (columns: string, ids: string) => `SELECT ${columns} FROM posts WHERE id IN (${ids}) AND status = 'published'`;
const POST_SQL = `SELECT ${PAGE_COLUMNS} FROM posts WHERE id = ?`;
const POST_WITH_SOURCE_SQL = `SELECT ${SOURCE_COLUMNS} FROM posts WHERE id = ?`;

/** The statements whose text differs between the two databases. */
interface DialectSql {
  bodyBytes: string;
  publishedByIds: string;
  publishedEncoded: string;
}
const SQLITE_SQL: DialectSql = {
  bodyBytes: bodyBytes(IDS_SQLITE),
  publishedByIds: published(PAGE_COLUMNS, IDS_SQLITE),
  publishedEncoded: published(ENCODED_COLUMNS, IDS_SQLITE),
};
const POSTGRES_SQL: DialectSql = {
  bodyBytes: bodyBytes(IDS_PG),
  publishedByIds: published(PAGE_COLUMNS, IDS_PG),
  publishedEncoded: published(ENCODED_COLUMNS_PG, IDS_PG),
};

/**
 * Read queries of the publish pipeline. Published posts are ordered oldest first (published_at,
 * then id), the order archive pages are numbered in.
 */
export class SiteRepo {
  private readonly texts: DialectSql;

  constructor(private readonly sql: SqlScope) {
    this.texts = sql.dialect === 'postgres' ? POSTGRES_SQL : SQLITE_SQL;
  }

  /** Summaries of the published posts, oldest first, a page at a time after `after` (keyset paging). */
  async publishedSummariesAfter(blogId: string, after: { publishedAt: string; id: string } | null, limit: number): Promise<PublishedSummary[]> {
    return (await this.sql.all<SummaryRow>(SUMMARY_PAGE_SQL, [blogId, after?.publishedAt ?? '', after?.id ?? '', limit])).map(toSummary);
  }

  /** Ids of the published posts, oldest first, a page at a time after `after` (keyset paging). */
  async publishedIdsAfter(blogId: string, after: { publishedAt: string; id: string } | null, limit: number): Promise<{ id: string; publishedAt: string }[]> {
    const rows = await this.sql.all<{ id: string; published_at: string }>(IDS_PAGE_SQL, [blogId, after?.publishedAt ?? '', after?.id ?? '', limit]);
    return rows.map((row) => ({ id: row.id, publishedAt: row.published_at }));
  }

  /**
   * Bytes of each post's stored HTML and Markdown (what publishedEncodedByIds reads), in the
   * order of `ids` (0 for a post that is gone).
   */
  async bodyBytes(ids: readonly string[]): Promise<number[]> {
    const rows = await this.sql.all<{ id: string; bytes: number }>(this.texts.bodyBytes, [JSON.stringify(ids)]);
    const bytes = new Map(rows.map((row) => [row.id, row.bytes]));
    return ids.map((id) => bytes.get(id) ?? 0);
  }

  /** The post's summary while it is published, else null. */
  async publishedSummary(postId: string): Promise<PublishedSummary | null> {
    const row = await this.sql.get<SummaryRow>(PUBLISHED_SUMMARY_SQL, [postId]);
    return row ? toSummary(row) : null;
  }

  /** The summary of the post published at `slug` in the blog, else null. */
  async publishedSummaryAt(blogId: string, slug: string): Promise<PublishedSummary | null> {
    const row = await this.sql.get<SummaryRow>(PUBLISHED_SUMMARY_AT_SQL, [blogId, slug]);
    return row ? toSummary(row) : null;
  }

  /** Sequence number of the newest entry in the change log (0 when empty). */
  async latestChange(): Promise<number> {
    return (await this.sql.get<{ seq: number | null }>('SELECT max(seq) AS seq FROM post_changes'))?.seq ?? 0;
  }

  /** Sequence number of the oldest entry still kept (null when the log is empty). */
  async oldestChange(): Promise<number | null> {
    return (await this.sql.get<{ seq: number | null }>('SELECT min(seq) AS seq FROM post_changes'))?.seq ?? null;
  }

  /** Changes to the blog's published posts after `seq`, oldest first. */
  async changesSince(blogId: string, seq: number): Promise<{ seq: number; postId: string }[]> {
    const rows = await this.sql.all<{ seq: number; post_id: string }>('SELECT seq, post_id FROM post_changes WHERE blog_id = ? AND seq > ? ORDER BY seq', [
      blogId,
      seq,
    ]);
    return rows.map((row) => ({ seq: row.seq, postId: row.post_id }));
  }

  /** Forgets change-log entries older than `seq`. */
  async pruneChanges(seq: number): Promise<void> {
    await this.sql.run('DELETE FROM post_changes WHERE seq < ?', [seq]);
  }

  /**
   * The newest published posts for the feeds: `contentHtml` is empty when larger than
   * `maxHtmlBytes`, `contentMd` is empty when the text counts are stored.
   */
  async newestPublished(blogId: string, limit: number, maxHtmlBytes: number): Promise<Post[]> {
    return (await this.sql.all<PostRowOf>(NEWEST_SQL, [maxHtmlBytes, blogId, limit])).map(toPost);
  }

  /**
   * The posts among `ids` that are published, as their pages and the search index need them
   * (`contentMd` is empty when the text counts are stored), in no particular order.
   */
  async publishedByIds(ids: readonly string[]): Promise<Post[]> {
    return (await this.sql.all<PostRowOf>(this.texts.publishedByIds, [JSON.stringify(ids)])).map(toPost);
  }

  /**
   * publishedByIds with each post's Markdown source, both bodies as UTF-8 bytes: a full render
   * hands them to the worker thread that renders the page and the twin, without decoding them.
   */
  async publishedEncodedByIds(ids: readonly string[]): Promise<EncodedPost[]> {
    return (await this.sql.all<EncodedRow>(this.texts.publishedEncoded, [JSON.stringify(ids)])).map(toEncodedPost);
  }

  /** Old addresses (old slugs and alias paths) of published posts and where they point now. */
  async redirects(blogId: string): Promise<{ from: string; to: string }[]> {
    const rows = await this.sql.all<{ old_slug: string; slug: string; status: string }>(REDIRECTS_SQL, [blogId, blogId]);
    return rows.filter((row) => row.status === 'published').map((row) => ({ from: row.old_slug, to: row.slug }));
  }

  /** Every old slug and alias path that points at the post, whatever its status. */
  async redirectsOfPost(postId: string): Promise<string[]> {
    return (await this.sql.all<{ old_slug: string }>(REDIRECTS_OF_POST_SQL, [postId, postId])).map((row) => row.old_slug);
  }

  /** The post as its page needs it (a neighbour's page): `contentMd` is empty when the text counts are stored. */
  async post(id: string): Promise<Post | null> {
    const row = await this.sql.get<PostRowOf>(POST_SQL, [id]);
    return row ? toPost(row) : null;
  }

  /** The post as its page and its Markdown twin need it: with its source. */
  async postWithSource(id: string): Promise<Post | null> {
    const row = await this.sql.get<PostRowOf>(POST_WITH_SOURCE_SQL, [id]);
    return row ? toPost(row) : null;
  }
}
