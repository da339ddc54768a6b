/**
 * What the rest of Folio needs of the search engine, declared beside it so that the HTTP routes,
 * the publisher and the metrics wrappers name one interface and import nothing of each other.
 */
import type { SearchDocument, SearchHit } from './searchTypes.js';
import type { SegmentData } from './segmentData.js';

/** What the search route needs: one page of hits. */
export interface BlogSearcher {
  search(blogSlug: string, q: string, options: { page: number; perPage: number }): Promise<{ hits: SearchHit[]; total: number }>;
}

/** What the publisher needs from the search index writer. */
export interface SearchIndexUpdater {
  upsert(blogSlug: string, docs: SearchDocument[]): Promise<void>;
  remove(blogSlug: string, postIds: string[]): Promise<void>;
  /**
   * Replaces the index with one of `count` documents read by position, a run at a time, while it
   * is built. May return the new index's segment data, which the static index then reuses.
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: an implementation that returns nothing (a test's stub) fits too.
  rebuildFrom(blogSlug: string, source: { count: number; read: (from: number, to: number) => Promise<SearchDocument[]> }): Promise<SegmentData[] | void>;
  drop(blogSlug: string): Promise<void>;
  /** Loads what the blog's next write reads (the index, the post ids of its segments). */
  warm?(blogSlug: string): Promise<void>;
  /** Lets go of what `warm` and earlier writes keep between writes (a server at rest); the next write reads it again. */
  release?(): void;
  /** Runs the CPU side of an upsert of these documents, writing nothing (the warm-up's dry run). */
  rehearse?(docs: readonly SearchDocument[]): Promise<void>;
}
