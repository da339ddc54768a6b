/** What the publisher hands to the index, and what a search returns (GET /v1/search's hits). */

/**
 * Names what the index takes of a post and how it is stored. Bump it when either changes, and
 * every blog is reindexed once after the upgrade (publish/reRenderAfterUpgrade.ts). 2: code blocks are
 * indexed. 3: segments are stored in format 3, which opens without being decoded whole (an older
 * segment is still read, but a first query after a restart decodes it whole).
 */
export const SEARCH_TEXT_VERSION = '3';

/** A published post as the search index stores it. `body` is plain text (markdown already stripped). */
export interface SearchDocument {
  id: string;
  slug: string;
  title: string;
  body: string;
  /** Plain text of the post's code blocks, indexed below prose (lunrSetup.ts). */
  code: string;
  metaDescription: string;
  tags: string[];
  /** ISO 8601 UTC with milliseconds. */
  createdAt: string;
  publishedAt: string;
  url: string;
}

/** A document without its text: what a static index lists of a post and where it sorts it. */
export type ListedDocument = Omit<SearchDocument, 'body' | 'code'>;

/** One result: everything the endpoint shows, read from the index's document table. */
export interface SearchHit {
  slug: string;
  title: string;
  metaDescription: string;
  tags: string[];
  createdAt: string;
  publishedAt: string;
  url: string;
}

export interface SearchPage {
  /** 1-based. */
  page: number;
  perPage: number;
}

export interface SearchResult {
  hits: SearchHit[];
  /** Every live post matching all query words, whatever the page. */
  total: number;
}
