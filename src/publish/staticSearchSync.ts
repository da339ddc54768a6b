/**
 * Keeps a blog's static search index (src/search/static, read by the `/search/` page) in step
 * with its posts, and tells the CDN which of its files changed: they change in place, like
 * pages. A blog without one (created before it existed) gets it built from the database at its
 * next post change or whole-blog render.
 */
import type { BlogWithDomain } from '../db/blogsRepo.js';
import type { StaticIndexChange } from '../search/static/staticIndexWriter.js';
import type { SearchDocument } from '../search/searchTypes.js';
import type { CdnSync } from './cdnSync.js';

/** What this needs of src/search/static/staticIndexWriter.ts. */
export interface StaticSearchIndex {
  exists(blogSlug: string): Promise<boolean>;
  rebuild(blogSlug: string, docs: readonly SearchDocument[]): Promise<StaticIndexChange>;
  upsert(blogSlug: string, docs: readonly SearchDocument[]): Promise<StaticIndexChange | null>;
  remove(blogSlug: string, ids: readonly string[]): Promise<StaticIndexChange | null>;
}

export interface StaticSearchSyncDeps {
  index: StaticSearchIndex;
  edge: CdnSync;
  /** Every published post of the blog as a search document (text made off the event loop). */
  allDocs: (blog: BlogWithDomain) => Promise<SearchDocument[]>;
}

export class StaticSearchSync {
  constructor(private readonly deps: StaticSearchSyncDeps) {}

  /** A post was published or edited (`doc`), or left the site (`doc` null). */
  async postChanged(blog: BlogWithDomain, postId: string, doc: SearchDocument | null, attempt: number): Promise<void> {
    const { index } = this.deps;
    const change = (doc ? await index.upsert(blog.slug, [doc]) : await index.remove(blog.slug, [postId])) ?? (await this.build(blog));
    await this.purge(blog, change, attempt);
  }

  /** Builds the index if the blog has none yet. */
  async ensure(blog: BlogWithDomain): Promise<void> {
    if (await this.deps.index.exists(blog.slug)) return;
    await this.purge(blog, await this.build(blog), 0);
  }

  /** Lays the index out afresh from the database. */
  async rebuild(blog: BlogWithDomain, docs?: readonly SearchDocument[]): Promise<void> {
    await this.purge(blog, await this.build(blog, docs), 0);
  }

  private async build(blog: BlogWithDomain, docs?: readonly SearchDocument[]): Promise<StaticIndexChange> {
    return this.deps.index.rebuild(blog.slug, docs ?? (await this.deps.allDocs(blog)));
  }

  private async purge(blog: BlogWithDomain, change: StaticIndexChange, attempt: number): Promise<void> {
    const keys = [...change.written, ...change.deleted];
    await this.deps.edge.changed(blog, { attempt, changedKeys: keys, allKeys: keys });
  }
}
