/**
 * Keeps a blog's static search index (src/search/static, read by the `/search/` page) in step
 * with its posts. Its files change in place, like pages, so every write answers the keys it
 * changed for the purge stage. A blog without one (created before it existed) gets it built from
 * the database at its next post change or whole-blog render.
 */
import { SingleFlight } from '../../lib/singleFlight.js';
import type { StaticIndexChange } from '../../search/static/staticIndexWriter.js';
import type { ListedDocument, SearchDocument } from '../../search/searchTypes.js';
import type { SegmentData } from '../../search/segmentData.js';
import type { BlogWithDomain } from '../../domain/blog.js';
import { holdNothing, type HoldBlog } from '../../lib/holdBlog.js';

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
  /** Lets go of the states kept between writes (a server at rest); each blog's next write reads its own again. */
  release(): number;
  /** Runs the CPU side of an upsert of these documents, writing nothing (the warm-up's dry run). */
  rehearse(docs: readonly SearchDocument[]): Promise<void>;
  /** Resolves once no write or upkeep of any blog is running or queued. */
  idle(): Promise<void>;
}

export interface StaticSearchSyncDeps {
  index: StaticSearchIndex;
  /** Every published post of the blog as a search document (text made off the event loop). */
  allDocs: (blog: BlogWithDomain) => Promise<SearchDocument[]>;
  /** Background upkeep changed these keys after its publish had answered: the purge stage's turn. */
  onBackgroundChange: (blog: BlogWithDomain, changedKeys: readonly string[]) => Promise<void>;
  /** A background merge or compaction failed; the index stays correct, only larger. */
  onBackgroundError: (err: unknown, blogSlug: string) => void;
  /** What background upkeep runs inside: with several nodes, holding the blog (publish/jobs/blogLeases.ts). */
  hold?: HoldBlog | undefined;
}

export class StaticSearchSync {
  /** Upkeep running in the background, at most one per blog. */
  private readonly upkeep = new SingleFlight<string, void>();

  constructor(private readonly deps: StaticSearchSyncDeps) {}

  /** Resolves once no background upkeep is running. */
  idle(): Promise<void> {
    return this.upkeep.idle();
  }

  /** A post was published or edited (`doc`), or left the site (`doc` null). Returns the keys it changed. */
  async postChanged(blog: BlogWithDomain, postId: string, doc: SearchDocument | null): Promise<string[]> {
    return doc ? this.postsChanged(blog, [doc], []) : this.postsChanged(blog, [], [postId]);
  }

  /** Posts published or edited (`docs`) and posts gone (`gone`), in one write each. Returns the keys it changed. */
  async postsChanged(blog: BlogWithDomain, docs: readonly SearchDocument[], gone: readonly string[]): Promise<string[]> {
    const { index } = this.deps;
    const keys = new Set<string>();
    for (const write of [docs.length > 0 ? () => index.upsert(blog.slug, docs) : null, gone.length > 0 ? () => index.remove(blog.slug, gone) : null]) {
      if (!write) continue;
      // No index yet (a blog made before it existed): built from the database, which holds every change.
      const change = (await write()) ?? (await this.build(blog));
      if (change.due) this.maintainInBackground(blog);
      for (const key of keysOf(change)) keys.add(key);
    }
    return [...keys];
  }

  /**
   * Merging the delta or compacting rewrites most of the index: it runs after the publish that
   * made it due has answered. Other writes to the blog queue behind it in the index writer; a
   * failure is reported and tried again by the next write.
   */
  private maintainInBackground(blog: BlogWithDomain): void {
    if (this.upkeep.has(blog.slug)) return;
    // Never rejects: a failure goes to onBackgroundError.
    const hold = this.deps.hold ?? holdNothing;
    void this.upkeep.load(blog.slug, () =>
      hold(blog.slug, () => this.deps.index.maintain(blog.slug))
        .then(async (change) => {
          if (change) await this.deps.onBackgroundChange(blog, keysOf(change));
        })
        .catch((err: unknown) => this.deps.onBackgroundError(err, blog.slug)),
    );
  }

  /** Builds the index if the blog has none yet; returns the keys it changed. */
  async ensure(blog: BlogWithDomain): Promise<string[]> {
    if (await this.deps.index.exists(blog.slug)) return [];
    return keysOf(await this.build(blog));
  }

  /**
   * Lays the index out afresh: from `built`, the API index's fresh segments of the posts `listed`,
   * when they hold them in the layout's order; else from the database, every post's text read
   * again. Returns the keys it changed.
   */
  async rebuild(blog: BlogWithDomain, from?: { listed: readonly ListedDocument[]; built: readonly SegmentData[] }): Promise<string[]> {
    const fromSegments = from ? await this.deps.index.rebuildFromSegments(blog.slug, from.listed, from.built) : null;
    return keysOf(fromSegments ?? (await this.build(blog)));
  }

  private async build(blog: BlogWithDomain): Promise<StaticIndexChange> {
    return this.deps.index.rebuild(blog.slug, await this.deps.allDocs(blog));
  }
}

function keysOf(change: StaticIndexChange): string[] {
  return [...change.written, ...change.deleted];
}
