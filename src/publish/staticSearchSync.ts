/**
 * Keeps a blog's static search index (src/search/static, read by the `/search/` page) in step
 * with its posts, and tells the CDN which of its files changed: they change in place, like
 * pages. A blog without one (created before it existed) gets it built from the database at its
 * next post change or whole-blog render.
 */
import type { BlogWithDomain } from '../domain/blog.js';
import type { StaticIndexChange } from '../search/static/staticIndexWriter.js';
import type { ListedDocument, SearchDocument } from '../search/searchTypes.js';
import type { CdnSync } from './cdnSync.js';
import type { SegmentData } from '../search/segmentData.js';

/** What this needs of src/search/static/staticIndexWriter.ts. */
export interface StaticSearchIndex {
  exists(blogSlug: string): Promise<boolean>;
  rebuild(blogSlug: string, docs: readonly SearchDocument[]): Promise<StaticIndexChange>;
  /** From the API index's segments of the same posts; null when they do not hold them in the layout's order. */
  rebuildFromSegments(blogSlug: string, docs: readonly ListedDocument[], built: readonly SegmentData[]): Promise<StaticIndexChange | null>;
  upsert(blogSlug: string, docs: readonly SearchDocument[]): Promise<StaticIndexChange | null>;
  remove(blogSlug: string, ids: readonly string[]): Promise<StaticIndexChange | null>;
  maintain(blogSlug: string): Promise<StaticIndexChange | null>;
  /** Reads the blog's index state ahead of its first write (a warm-up after a restart). */
  warm(blogSlug: string): Promise<void>;
  /** Runs the CPU side of an upsert of these documents, writing nothing (the warm-up's dry run). */
  rehearse(docs: readonly SearchDocument[]): Promise<void>;
}

export interface StaticSearchSyncDeps {
  index: StaticSearchIndex;
  edge: CdnSync;
  /** Every published post of the blog as a search document (text made off the event loop). */
  allDocs: (blog: BlogWithDomain) => Promise<SearchDocument[]>;
  /** A background merge or compaction failed; the index stays correct, only larger. */
  onBackgroundError: (err: unknown, blogSlug: string) => void;
}

export class StaticSearchSync {
  /** Upkeep running in the background, at most one per blog. */
  private readonly upkeep = new Map<string, Promise<void>>();

  constructor(private readonly deps: StaticSearchSyncDeps) {}

  /** Reads the blog's index state ahead of its first publish. */
  warm(blogSlug: string): Promise<void> {
    return this.deps.index.warm(blogSlug);
  }

  /** Runs the CPU side of an upsert, writing nothing. */
  rehearse(docs: readonly SearchDocument[]): Promise<void> {
    return this.deps.index.rehearse(docs);
  }

  /** Resolves once no background upkeep is running. */
  async idle(): Promise<void> {
    while (this.upkeep.size > 0) await Promise.all([...this.upkeep.values()]);
  }

  /** A post was published or edited (`doc`), or left the site (`doc` null). */
  async postChanged(blog: BlogWithDomain, postId: string, doc: SearchDocument | null, attempt: number): Promise<void> {
    const { index } = this.deps;
    const change = (doc ? await index.upsert(blog.slug, [doc]) : await index.remove(blog.slug, [postId])) ?? (await this.build(blog));
    await this.purge(blog, change, attempt);
    if (change.due) this.maintainInBackground(blog);
  }

  /**
   * Merging the delta or compacting rewrites most of the index (seconds on a large blog): it
   * runs after the publish that made it due has answered. Other writes to the blog queue behind
   * it in the index writer; a failure is reported and tried again by the next write.
   */
  private maintainInBackground(blog: BlogWithDomain): void {
    if (this.upkeep.has(blog.slug)) return;
    const work = this.deps.index
      .maintain(blog.slug)
      .then(async (change) => {
        if (change) await this.purge(blog, change, 1);
      })
      .catch((err: unknown) => this.deps.onBackgroundError(err, blog.slug))
      .finally(() => this.upkeep.delete(blog.slug));
    this.upkeep.set(blog.slug, work);
  }

  /** Builds the index if the blog has none yet. */
  async ensure(blog: BlogWithDomain): Promise<void> {
    if (await this.deps.index.exists(blog.slug)) return;
    await this.purge(blog, await this.build(blog), 0);
  }

  /**
   * Lays the index out afresh: from `built`, the API index's fresh segments of the posts `listed`,
   * when they hold them in the layout's order; else from the database, every post's text read again.
   */
  async rebuild(blog: BlogWithDomain, from?: { listed: readonly ListedDocument[]; built: readonly SegmentData[] }): Promise<void> {
    const fromSegments = from ? await this.deps.index.rebuildFromSegments(blog.slug, from.listed, from.built) : null;
    await this.purge(blog, fromSegments ?? (await this.build(blog)), 0);
  }

  private async build(blog: BlogWithDomain): Promise<StaticIndexChange> {
    return this.deps.index.rebuild(blog.slug, await this.deps.allDocs(blog));
  }

  private async purge(blog: BlogWithDomain, change: StaticIndexChange, attempt: number): Promise<void> {
    const keys = [...change.written, ...change.deleted];
    await this.deps.edge.changed(blog, { attempt, changedKeys: keys, allKeys: keys });
  }
}
