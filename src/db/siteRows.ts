/** The rows the publish pipeline reads (siteRepo.ts, summaryReader.ts): their SQL and mappers. */
import { toPost, type PostRow } from './postRows.js';
import type { Post } from '../domain/post.js';
import type { SitePostSummary } from '../domain/siteTypes.js';
import { countPostText, type TextCounts } from '../domain/language.js';
import { minutesFromCounts } from '../domain/readingTime.js';

/** A published post without its body: what listings, tag pages and the sitemap need. */
export type PublishedSummary = SitePostSummary;

export interface SummaryRow {
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

export const toSummary = (row: SummaryRow): PublishedSummary => ({
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
export const summaryColumns = (t = ''): string =>
  `${t}id, ${t}slug, ${t}title, ${t}meta_description, ${t}og_image_url, ${t}tags, ${t}published_at, ${t}created_at, ${t}updated_at, ${t}text_counts, CASE WHEN ${t}text_counts IS NULL THEN ${t}content_md ELSE '' END AS content_md`;

export const SUMMARY_COLUMNS = summaryColumns();

/** A page of the listing, oldest first, after a (published_at, id) position (keyset paging). */
export const SUMMARY_PAGE_SQL = `SELECT ${SUMMARY_COLUMNS} FROM posts WHERE blog_id = ? AND status = 'published' AND (published_at, id) > (?, ?) ORDER BY published_at, id LIMIT ?`;

/** Summaries from a (published_at, id) position on, that one included. */
export const SUMMARY_FROM_SQL = `SELECT ${SUMMARY_COLUMNS} FROM posts WHERE blog_id = ? AND status = 'published' AND (published_at, id) >= (?, ?) ORDER BY published_at, id LIMIT ?`;

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
export const PAGE_COLUMNS = postColumns(`CASE WHEN text_counts IS NULL THEN content_md ELSE '' END`);

/** A post as its page and its Markdown twin (publish/pages/postTwins.ts) need it: the source too. */
export const SOURCE_COLUMNS = postColumns('content_md');

/** SOURCE_COLUMNS with both bodies as their stored UTF-8 bytes (a blob is not decoded into a string). */
export const ENCODED_COLUMNS = postColumns('CAST(content_md AS BLOB)', 'CAST(content_html AS BLOB)');

/** ENCODED_COLUMNS on PostgreSQL: convert_to() gives the UTF-8 bytes as a bytea (a Buffer in node-postgres). */
export const ENCODED_COLUMNS_PG = postColumns(`convert_to(content_md, 'UTF8')`, `convert_to(content_html, 'UTF8')`);

/** A post whose HTML and Markdown are their UTF-8 bytes, as stored. */
export type EncodedPost = Omit<Post, 'contentMd' | 'contentHtml'> & { contentMd: Uint8Array; contentHtml: Uint8Array };

export type EncodedRow = Omit<PostRow, 'content_md' | 'content_html'> & { content_md: Uint8Array; content_html: Uint8Array };

export const toEncodedPost = (row: EncodedRow): EncodedPost => ({
  ...toPost({ ...row, content_md: '', content_html: '' }),
  contentMd: row.content_md,
  contentHtml: row.content_html,
});
