import type { Db } from './database.js';
import { toPost, type PostRow } from './postRows.js';
import type { Post } from '../domain/post.js';
import type { SitePostSummary } from '../domain/siteTypes.js';
import { countPostText, type TextCounts } from '../domain/language.js';
import { minutesFromCounts } from '../domain/readingTime.js';

/** A published post without its body: what listings, tag pages and the sitemap need. */
export type PublishedSummary = SitePostSummary;

interface SummaryRow {
  id: string;
  slug: string;
  title: string;
  meta_description: string;
  og_image_url: string | null;
  tags: string;
  published_at: string;
  created_at: string;
  updated_at: string;
  text_counts: string | null;
  /** Only for rows without text_counts (written before counts were stored). */
  content_md: string;
}

const toSummary = (row: SummaryRow): PublishedSummary => ({
  id: row.id,
  slug: row.slug,
  title: row.title,
  metaDescription: row.meta_description,
  ogImageUrl: row.og_image_url,
  tags: JSON.parse(row.tags) as string[],
  publishedAt: row.published_at,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  // As the post page counts it, so a list and the post always agree.
  readingMinutes: minutesFromCounts(
    row.text_counts ? (JSON.parse(row.text_counts) as TextCounts) : countPostText({ title: row.title, contentMd: row.content_md }),
  ),
});

/** Columns of a summary row; all but content_md are in the posts_published_summary index (migration 013). */
export const SUMMARY_COLUMN_NAMES = [
  'id',
  'slug',
  'title',
  'meta_description',
  'og_image_url',
  'tags',
  'published_at',
  'created_at',
  'updated_at',
  'text_counts',
  'content_md',
] as const;

/** The columns of a summary, of table `t` when given (a join). */
const summaryColumns = (t = ''): string =>
  `${t}id, ${t}slug, ${t}title, ${t}meta_description, ${t}og_image_url, ${t}tags, ${t}published_at, ${t}created_at, ${t}updated_at, ${t}text_counts, CASE WHEN ${t}text_counts IS NULL THEN ${t}content_md ELSE '' END AS content_md`;

const SUMMARY_COLUMNS = summaryColumns();

/** A page of the listing, oldest first, after a (published_at, id) position (keyset paging). */
export const SUMMARY_PAGE_SQL = `SELECT ${SUMMARY_COLUMNS} FROM posts WHERE blog_id = ? AND status = 'published' AND (published_at, id) > (?, ?) ORDER BY published_at, id LIMIT ?`;

/** Summaries from a (published_at, id) position on, that one included. */
const SUMMARY_FROM_SQL = `SELECT ${SUMMARY_COLUMNS} FROM posts WHERE blog_id = ? AND status = 'published' AND (published_at, id) >= (?, ?) ORDER BY published_at, id LIMIT ?`;

/**
 * Summaries of published posts named by their (published_at, id), in no particular order: one
 * index seek each in the summary index, however scattered the posts are (a tag's newest posts).
 * Reading them by id alone would go to the table rows, behind their Markdown and HTML.
 */
export const SUMMARY_AT_SQL = `SELECT ${summaryColumns('p.')} FROM json_each(?) AS j CROSS JOIN posts AS p WHERE p.blog_id = ? AND p.status = 'published' AND p.published_at = j.value ->> 0 AND p.id = j.value ->> 1`;

/** The columns of a post row, with `md` for content_md and `html` for content_html. */
const postColumns = (md: string, html = 'content_html'): string =>
  `id, blog_id, title, slug, ${md} AS content_md, ${html} AS content_html, meta_description, meta_explicit, og_image_url, tags, status, published_at, scheduled_at, created_at, updated_at, text_counts`;

/**
 * A post as its page and the search index need it. The Markdown only counts its text when the
 * counts are not stored (migration 005): neighbours and the index leave it out, since reading it
 * roughly doubles the bytes of a row.
 */
const PAGE_COLUMNS = postColumns(`CASE WHEN text_counts IS NULL THEN content_md ELSE '' END`);

/** A post as its page and its Markdown twin (publish/pages/postTwins.ts) need it: the source too. */
const SOURCE_COLUMNS = postColumns('content_md');

/** SOURCE_COLUMNS with both bodies as their stored UTF-8 bytes (a blob is not decoded into a string). */
const ENCODED_COLUMNS = postColumns('CAST(content_md AS BLOB)', 'CAST(content_html AS BLOB)');

/** A post whose HTML and Markdown are their UTF-8 bytes, as stored. */
export type EncodedPost = Omit<Post, 'contentMd' | 'contentHtml'> & { contentMd: Uint8Array; contentHtml: Uint8Array };

type EncodedRow = Omit<PostRow, 'content_md' | 'content_html'> & { content_md: Uint8Array; content_html: Uint8Array };

const toEncodedPost = (row: EncodedRow): EncodedPost => ({
  ...toPost({ ...row, content_md: '', content_html: '' }),
  contentMd: row.content_md,
  contentHtml: row.content_html,
});

/**
 * Read queries of the publish pipeline. Published posts are ordered oldest first (published_at,
 * then id), the order archive pages are numbered in.
 */
export class SiteRepo {
  private readonly summariesPageStmt;
  private readonly idsPageStmt;
  private readonly summariesFromStmt;
  private readonly summariesAtStmt;
  private readonly anySummaryStmt;
  private readonly bodyBytesStmt;
  private readonly newestStmt;
  private readonly redirectsStmt;
  private readonly byIdsStmt;
  private readonly withSourceStmt;
  private readonly publishedByIdsStmt;
  private readonly publishedEncodedStmt;
  private readonly redirectsOfPostStmt;
  private readonly summaryStmt;
  private readonly latestChangeStmt;
  private readonly oldestChangeStmt;
  private readonly changesSinceStmt;
  private readonly pruneChangesStmt;

  constructor(db: Db) {
    this.summariesPageStmt = db.prepare<[string, string, string, number], SummaryRow>(SUMMARY_PAGE_SQL);
    this.summariesFromStmt = db.prepare<[string, string, string, number], SummaryRow>(SUMMARY_FROM_SQL);
    this.summariesAtStmt = db.prepare<[string, string], SummaryRow>(SUMMARY_AT_SQL);
    this.anySummaryStmt = db.prepare<[string], SummaryRow>(`SELECT ${SUMMARY_COLUMNS} FROM posts WHERE id = ?`);
    // octet_length() reads the length from the record header, not the text.
    this.bodyBytesStmt = db.prepare<[string], { id: string; bytes: number }>(
      'SELECT id, octet_length(content_html) + octet_length(content_md) AS bytes FROM posts WHERE id IN (SELECT value FROM json_each(?))',
    );
    this.idsPageStmt = db.prepare<[string, string, string, number], { id: string; published_at: string }>(
      `SELECT id, published_at FROM posts WHERE blog_id = ? AND status = 'published' AND (published_at, id) > (?, ?) ORDER BY published_at, id LIMIT ?`,
    );
    // Feeds carry HTML only up to a size (publish/render/feeds.ts): larger bodies are not even read,
    // and octet_length() answers from the record header without loading the text.
    this.newestStmt = db.prepare<[number, string, number], Parameters<typeof toPost>[0]>(
      `SELECT id, blog_id, title, slug, CASE WHEN text_counts IS NULL THEN content_md ELSE '' END AS content_md,
              CASE WHEN octet_length(content_html) <= ? THEN content_html ELSE '' END AS content_html,
              meta_description, meta_explicit, og_image_url, tags, status, published_at, scheduled_at, created_at, updated_at, text_counts
         FROM posts WHERE blog_id = ? AND status = 'published' ORDER BY published_at DESC, id DESC LIMIT ?`,
    );
    this.redirectsStmt = db.prepare<[string, string], { old_slug: string; slug: string; status: string }>(
      `SELECT r.old_slug, p.slug, p.status FROM post_redirects r JOIN posts p ON p.id = r.post_id WHERE r.blog_id = ?
       UNION ALL SELECT a.path AS old_slug, p.slug, p.status FROM post_aliases a JOIN posts p ON p.id = a.post_id WHERE a.blog_id = ?
       ORDER BY old_slug`,
    );
    this.redirectsOfPostStmt = db.prepare<[string, string], { old_slug: string }>(
      'SELECT old_slug FROM post_redirects WHERE post_id = ? UNION ALL SELECT path AS old_slug FROM post_aliases WHERE post_id = ?',
    );
    this.summaryStmt = db.prepare<[string], SummaryRow>(`SELECT ${SUMMARY_COLUMNS} FROM posts WHERE id = ? AND status = 'published'`);
    this.latestChangeStmt = db.prepare<[], { seq: number | null }>('SELECT max(seq) AS seq FROM post_changes');
    this.oldestChangeStmt = db.prepare<[], { seq: number | null }>('SELECT min(seq) AS seq FROM post_changes');
    this.changesSinceStmt = db.prepare<[string, number], { seq: number; post_id: string }>(
      'SELECT seq, post_id FROM post_changes WHERE blog_id = ? AND seq > ? ORDER BY seq',
    );
    this.pruneChangesStmt = db.prepare<[number]>('DELETE FROM post_changes WHERE seq < ?');
    this.byIdsStmt = db.prepare<[string], Parameters<typeof toPost>[0]>(`SELECT ${PAGE_COLUMNS} FROM posts WHERE id = ?`);
    this.withSourceStmt = db.prepare<[string], Parameters<typeof toPost>[0]>(`SELECT ${SOURCE_COLUMNS} FROM posts WHERE id = ?`);
    const published = (columns: string) => `SELECT ${columns} FROM posts WHERE id IN (SELECT value FROM json_each(?)) AND status = 'published'`;
    this.publishedByIdsStmt = db.prepare<[string], Parameters<typeof toPost>[0]>(published(PAGE_COLUMNS));
    this.publishedEncodedStmt = db.prepare<[string], EncodedRow>(published(ENCODED_COLUMNS));
  }

  /** Summaries of the published posts, oldest first, a page at a time after `after` (keyset paging). */
  publishedSummariesAfter(blogId: string, after: { publishedAt: string; id: string } | null, limit: number): PublishedSummary[] {
    return this.summariesPageStmt.all(blogId, after?.publishedAt ?? '', after?.id ?? '', limit).map(toSummary);
  }

  /** Up to `limit` published summaries from a (published_at, id) position on, that one included. */
  publishedSummariesFrom(blogId: string, from: { publishedAt: string; id: string }, limit: number): PublishedSummary[] {
    return this.summariesFromStmt.all(blogId, from.publishedAt, from.id, limit).map(toSummary);
  }

  /** The published summaries of these posts (found by their place), in no particular order. */
  publishedSummariesAt(blogId: string, posts: readonly { publishedAt: string; id: string }[]): PublishedSummary[] {
    return this.summariesAtStmt.all(JSON.stringify(posts.map((post) => [post.publishedAt, post.id])), blogId).map(toSummary);
  }

  /** The post's summary whatever its status (published_at as it was when it left the site); null once the row is gone. */
  summaryOfAnyStatus(postId: string): PublishedSummary | null {
    const row = this.anySummaryStmt.get(postId);
    return row ? toSummary(row) : null;
  }

  /** Ids of the published posts, oldest first, a page at a time after `after` (keyset paging). */
  publishedIdsAfter(blogId: string, after: { publishedAt: string; id: string } | null, limit: number): { id: string; publishedAt: string }[] {
    return this.idsPageStmt.all(blogId, after?.publishedAt ?? '', after?.id ?? '', limit).map((row) => ({ id: row.id, publishedAt: row.published_at }));
  }

  /**
   * Bytes of each post's stored HTML and Markdown (what publishedEncodedByIds reads), in the
   * order of `ids` (0 for a post that is gone).
   */
  bodyBytes(ids: readonly string[]): number[] {
    const bytes = new Map(this.bodyBytesStmt.all(JSON.stringify(ids)).map((row) => [row.id, row.bytes]));
    return ids.map((id) => bytes.get(id) ?? 0);
  }

  /** The post's summary while it is published, else null. */
  publishedSummary(postId: string): PublishedSummary | null {
    const row = this.summaryStmt.get(postId);
    return row ? toSummary(row) : null;
  }

  /** Sequence number of the newest entry in the change log (0 when empty). */
  latestChange(): number {
    return this.latestChangeStmt.get()?.seq ?? 0;
  }

  /** Sequence number of the oldest entry still kept (null when the log is empty). */
  oldestChange(): number | null {
    return this.oldestChangeStmt.get()?.seq ?? null;
  }

  /** Changes to the blog's published posts after `seq`, oldest first. */
  changesSince(blogId: string, seq: number): { seq: number; postId: string }[] {
    return this.changesSinceStmt.all(blogId, seq).map((row) => ({ seq: row.seq, postId: row.post_id }));
  }

  /** Forgets change-log entries older than `seq`. */
  pruneChanges(seq: number): void {
    this.pruneChangesStmt.run(seq);
  }

  /**
   * The newest published posts for the feeds: `contentHtml` is empty when larger than
   * `maxHtmlBytes`, `contentMd` is empty when the text counts are stored.
   */
  newestPublished(blogId: string, limit: number, maxHtmlBytes: number): Post[] {
    return this.newestStmt.all(maxHtmlBytes, blogId, limit).map(toPost);
  }

  /**
   * The posts among `ids` that are published, as their pages and the search index need them
   * (`contentMd` is empty when the text counts are stored), in no particular order.
   */
  publishedByIds(ids: readonly string[]): Post[] {
    return this.publishedByIdsStmt.all(JSON.stringify(ids)).map(toPost);
  }

  /**
   * publishedByIds with each post's Markdown source, both bodies as UTF-8 bytes: a full render
   * hands them to the worker thread that renders the page and the twin, without decoding them.
   */
  publishedEncodedByIds(ids: readonly string[]): EncodedPost[] {
    return this.publishedEncodedStmt.all(JSON.stringify(ids)).map(toEncodedPost);
  }

  /** Old addresses (old slugs and alias paths) of published posts and where they point now. */
  redirects(blogId: string): { from: string; to: string }[] {
    return this.redirectsStmt
      .all(blogId, blogId)
      .filter((row) => row.status === 'published')
      .map((row) => ({ from: row.old_slug, to: row.slug }));
  }

  /** Every old slug and alias path that points at the post, whatever its status. */
  redirectsOfPost(postId: string): string[] {
    return this.redirectsOfPostStmt.all(postId, postId).map((row) => row.old_slug);
  }

  /** The post as its page needs it (a neighbour's page): `contentMd` is empty when the text counts are stored. */
  post(id: string): Post | null {
    const row = this.byIdsStmt.get(id);
    return row ? toPost(row) : null;
  }

  /** The post as its page and its Markdown twin need it: with its source. */
  postWithSource(id: string): Post | null {
    const row = this.withSourceStmt.get(id);
    return row ? toPost(row) : null;
  }
}
