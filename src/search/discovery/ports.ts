/**
 * Public discovery across blogs (GET /v1/discover): the one interface the route and the publish
 * pipeline name, so that another database (issue #32's PostgreSQL) can implement it. The SQLite
 * implementation is src/db/discoveryRepo.ts.
 */
import type { Language } from '../../domain/language.js';

/**
 * The matches a query reaches: its total stops there and pages beyond are empty, so the cost of a
 * query that matches most posts (`the`) is bounded by this, not by the number of posts.
 */
export const MAX_DISCOVERY_RESULTS = 1000;

/** A published post of a discoverable blog, as the index takes it: its text fields, plain. */
export interface DiscoveryDocument {
  postId: string;
  blogId: string;
  lang: Language;
  /** Orders the results: newest first. */
  publishedAt: string;
  title: string;
  tags: readonly string[];
  description: string;
  /** The prose of the post (SearchDocument's `body`). */
  body: string;
  /** The text of its code blocks, weighing half a word of prose as in /v1/search. */
  code: string;
}

export interface DiscoveryQuery {
  q: string;
  tag?: string;
  lang?: Language;
  page: number;
  perPage: number;
}

/** One hit, read from the live rows at query time (so a rename or a custom domain shows at once). */
export interface DiscoveryHit {
  title: string;
  slug: string;
  metaDescription: string;
  tags: string[];
  lang: Language;
  publishedAt: string;
  blog: { slug: string; name: string; customDomain: string | null; domainActive: boolean };
}

export interface DiscoveryIndex {
  /** Adds or replaces these posts' entries. */
  upsert(docs: readonly DiscoveryDocument[]): Promise<void>;
  /** Removes these posts' entries (unpublished, deleted). */
  remove(postIds: readonly string[]): Promise<void>;
  /** Removes the entries of the blog's posts not in `keep` (all of them when `keep` is empty). */
  prune(blogId: string, keep: ReadonlySet<string>): Promise<void>;
  /**
   * Published posts of discoverable blogs matching every word of `q`, newest first. Drafts,
   * scheduled posts, deleted posts and blogs that are not (or no longer) discoverable never
   * appear, whatever the index still holds. `total` counts at most MAX_DISCOVERY_RESULTS.
   */
  search(query: DiscoveryQuery): Promise<{ hits: DiscoveryHit[]; total: number }>;
}
