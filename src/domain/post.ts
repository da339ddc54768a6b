/** A post as the rest of the code sees it; db/postRows.ts maps it to and from its rows. */
import type { TextCounts } from './language.js';

export type PostStatus = 'draft' | 'published' | 'scheduled';

export interface Post {
  id: string;
  blogId: string;
  title: string;
  slug: string;
  contentMd: string;
  contentHtml: string;
  metaDescription: string;
  /** True once the author supplied meta.description; until then it follows the content. */
  metaExplicit: boolean;
  ogImageUrl: string | null;
  tags: string[];
  status: PostStatus;
  publishedAt: string | null;
  scheduledAt: string | null;
  createdAt: string;
  updatedAt: string;
  /** Counts of the post's prose as stored (see migration 005); null for rows not yet counted. */
  textCounts?: TextCounts | null;
  /** Advanced by every update (migration 012); 0 for a new post. ETags name it. */
  revision?: number;
}

/** A post without its bodies: what the list endpoint shows (the post summary of the OpenAPI document). */
export type PostSummary = Pick<Post, 'id' | 'title' | 'slug' | 'status' | 'tags' | 'metaDescription' | 'publishedAt' | 'createdAt' | 'updatedAt'>;

export type PostSortField = 'created_at' | 'published_at' | 'updated_at';

export interface PostListQuery {
  status?: PostStatus;
  tag?: string;
  page: number;
  perPage: number;
  sort: PostSortField;
  order: 'asc' | 'desc';
}

/** What names one version of a post: every update advances `revision` (migration 012). */
export interface PostVersion {
  id: string;
  revision: number;
}
