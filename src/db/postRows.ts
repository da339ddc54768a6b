/** How a post (src/domain/post.ts) maps to and from its rows (postsRepo.ts). */
import type { TextCounts } from '../domain/language.js';
import type { Post, PostStatus, PostSummary } from '../domain/post.js';

export interface PostRow {
  id: string;
  blog_id: string;
  title: string;
  slug: string;
  content_md: string;
  content_html: string;
  meta_description: string;
  meta_explicit: number;
  og_image_url: string | null;
  tags: string;
  status: PostStatus;
  published_at: string | null;
  scheduled_at: string | null;
  created_at: string;
  updated_at: string;
  text_counts?: string | null;
  revision: number;
}

export const toPost = (row: PostRow): Post => ({
  id: row.id,
  blogId: row.blog_id,
  title: row.title,
  slug: row.slug,
  contentMd: row.content_md,
  contentHtml: row.content_html,
  metaDescription: row.meta_description,
  metaExplicit: row.meta_explicit === 1,
  ogImageUrl: row.og_image_url,
  tags: JSON.parse(row.tags) as string[],
  status: row.status,
  publishedAt: row.published_at,
  scheduledAt: row.scheduled_at,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  textCounts: row.text_counts ? (JSON.parse(row.text_counts) as TextCounts) : null,
  revision: row.revision,
});

export type ExportRow = PostRow & { seq: number };

export type SummaryRow = Pick<PostRow, 'id' | 'title' | 'slug' | 'status' | 'tags' | 'meta_description' | 'published_at' | 'created_at' | 'updated_at'>;

export const SUMMARY_COLUMNS = 'p.id, p.title, p.slug, p.status, p.tags, p.meta_description, p.published_at, p.created_at, p.updated_at';

export const toSummary = (row: SummaryRow): PostSummary => ({
  id: row.id,
  title: row.title,
  slug: row.slug,
  status: row.status,
  tags: JSON.parse(row.tags) as string[],
  metaDescription: row.meta_description,
  publishedAt: row.published_at,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

// The counts come with the post: PostsService derives them from the title and Markdown being
// stored, before the write transaction (counting a large post inside it would hold every writer). A row
// written without them stores null, and readers count the text themselves.
export const toParams = (post: Post) => ({
  ...post,
  metaExplicit: post.metaExplicit ? 1 : 0,
  tags: JSON.stringify(post.tags),
  textCounts: post.textCounts ? JSON.stringify(post.textCounts) : null,
});
