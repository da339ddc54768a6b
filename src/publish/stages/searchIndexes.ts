/**
 * The index stage: keeps a blog's two search indexes in step with its posts, the API's
 * (src/search, through SearchIndexUpdater) and the static one the `/search/` page reads
 * (StaticSearchSync), and the cross-blog discovery index for a discoverable blog (DiscoveryEntries). Pipelines call it after the purge of their pages; it purges nothing
 * itself, and answers the static index's changed keys for the purge stage instead.
 */
import type { SiteRepo } from '../../db/siteRepo.js';
import type { Logger } from '../../lib/logger.js';
import type { ContentRenderer } from '../../content/contentRenderer.js';
import type { SearchDocument } from '../../search/searchTypes.js';
import { listedDocsOf } from '../../search/segmentData.js';
import type { SiteUrls } from '../../domain/siteUrls.js';
import type { SitePost } from '../../domain/siteTypes.js';
import { SearchDocuments } from './searchDocuments.js';
import { StaticSearchSync, type StaticSearchIndex } from './staticSearchSync.js';
import type { BlogWithDomain } from '../../domain/blog.js';
import type { SearchIndexUpdater } from '../../search/ports.js';
import type { DiscoveryIndex } from '../../search/discovery/ports.js';
import { DiscoveryEntries } from './discoveryEntries.js';
import { livePosts } from './loadSite.js';
import { StaticSearchQueue, type StaticSearchQueueDeps } from './staticSearchQueue.js';

export interface SearchIndexesDeps {
  site: Pick<SiteRepo, 'publishedIdsAfter' | 'publishedByIds'>;
  urls: Pick<SiteUrls, 'post'>;
  search: SearchIndexUpdater;
  /** GET /v1/discover's index across blogs. */
  discovery: DiscoveryIndex;
  /** Plain text of stored HTML for the index, off the event loop for large posts. */
  content: Pick<ContentRenderer, 'searchText'>;
  /** The index the `/search/` page reads in the browser. */
  staticSearch: StaticSearchIndex;
  /** Keys of the static index that its background upkeep changed: the purge stage's turn. */
  onBackgroundChange: (blog: BlogWithDomain, changedKeys: readonly string[]) => Promise<void>;
  logger: Logger;
  /** Whether a blog still exists: queued static index changes of a deleted blog are dropped. */
  blogExists: (blogId: string) => Promise<boolean>;
  /** The durable mark of a blog whose static index may lack queued changes (stages/staticSearchQueue.ts). */
  staticBehind: StaticSearchQueueDeps['behind'];
  /** What background writes of a blog's static index run inside (several nodes: holding the blog). */
  hold?: StaticSearchQueueDeps['hold'];
}

export class SearchIndexes {
  private readonly documents: SearchDocuments;
  private readonly staticSearch: StaticSearchSync;
  private readonly discovery: DiscoveryEntries;
  private readonly staticQueue: StaticSearchQueue;
  /**
   * The posts changed in a blog whose indexes are being rebuilt: the rebuild would replace what
   * their changes wrote, so they are applied once it is in place.
   */
  private readonly holding = new Map<string, Set<string>>();

  constructor(private readonly deps: SearchIndexesDeps) {
    this.documents = new SearchDocuments(deps);
    this.discovery = new DiscoveryEntries({ discovery: deps.discovery, site: deps.site, documents: this.documents });
    this.staticSearch = new StaticSearchSync({
      index: deps.staticSearch,
      allDocs: (blog) => this.documents.all(blog),
      onBackgroundChange: deps.onBackgroundChange,
      onBackgroundError: (err, blog) =>
        deps.logger.warn({ err, blog }, 'static search upkeep failed; the index stays correct and is tried again at the next write'),
      hold: deps.hold,
    });
    this.staticQueue = new StaticSearchQueue({
      write: (blog, docs, gone) => this.staticSearch.postsChanged(blog, docs, gone),
      rebuild: (blog) => this.staticSearch.rebuild(blog),
      exists: deps.blogExists,
      behind: deps.staticBehind,
      onChange: deps.onBackgroundChange,
      onError: (err, blog) => deps.logger.warn({ err, blog }, "static search index not updated; the blog's next change lays it out afresh from the database"),
      hold: deps.hold,
    });
  }

  /** Loads what the blog's next index writes read: the static index's state, the API index's segment ids. */
  async warm(blogSlug: string): Promise<void> {
    await Promise.all([this.deps.staticSearch.warm(blogSlug), this.deps.search.warm?.(blogSlug)]);
  }

  /** Lets go of what `warm` and the writes keep between writes, in both indexes (a server at rest); returns the static states let go. */
  release(): number {
    this.deps.search.release?.();
    return this.deps.staticSearch.release();
  }

  /** What postChanged would compute for this post, written nowhere: its search text, and the CPU side of both upserts. */
  async rehearse(blog: BlogWithDomain, live: SitePost): Promise<void> {
    const doc = await this.documents.of(blog, live);
    await this.deps.search.rehearse?.([doc]);
    await this.deps.staticSearch.rehearse([doc]);
  }

  /** At start: lays out afresh the static index a stopped process left behind (staticSearchQueue.ts). */
  resumeStatic(blog: BlogWithDomain): void {
    this.staticQueue.resume(blog);
  }

  /** Resolves once background upkeep (static index merges) and the static index's writes are done. */
  async idle(): Promise<void> {
    await this.staticQueue.idle();
    await this.staticSearch.idle();
    await this.deps.staticSearch.idle();
  }

  /** A post was published or edited (`live`), or left the site (`live` null). Returns the static index's changed keys. */
  async postChanged(blog: BlogWithDomain, postId: string, live: SitePost | null): Promise<string[]> {
    // Never held: a reindex's catch-up (holdingChanges) applies its posts at once.
    const keys = await this.apply(blog, [{ postId, live }]);
    // Whole-blog work (a reindex catching up with changes made meanwhile) ends with both indexes
    // written: a CLI command returns, and its process exits, only then.
    await this.staticQueue.idle();
    return keys;
  }

  /**
   * Posts of one blog published or edited (`live`) or gone (`live` null), each named once: one
   * upsert and one removal per index for all of them, so a batch adds one segment and one delta.
   * The static index follows after the answer (stages/staticSearchQueue.ts), so this returns no
   * keys of it: its writes are purged when they land.
   */
  async postsChanged(blog: BlogWithDomain, posts: readonly { postId: string; live: SitePost | null }[]): Promise<string[]> {
    const held = this.holding.get(blog.id);
    if (held) {
      for (const post of posts) held.add(post.postId);
      return [];
    }
    return this.apply(blog, posts);
  }

  private async apply(blog: BlogWithDomain, posts: readonly { postId: string; live: SitePost | null }[]): Promise<string[]> {
    const docs: SearchDocument[] = [];
    const gone: string[] = [];
    for (const { postId, live } of posts) {
      const doc = live ? await this.documents.of(blog, live) : null;
      if (doc) docs.push(doc);
      else gone.push(postId);
      await this.discovery.postChanged(blog, postId, live, doc);
    }
    if (docs.length > 0) await this.deps.search.upsert(blog.slug, docs);
    if (gone.length > 0) await this.deps.search.remove(blog.slug, gone);
    await this.staticQueue.add(blog, docs, gone);
    return [];
  }

  /** The blog's entries in the discovery index afresh (opted in), or none (opted out); returns how many. */
  refillDiscovery(blog: BlogWithDomain): Promise<number> {
    return this.discovery.refill(blog);
  }

  /** A deleted blog's entries in the discovery index. */
  dropDiscovery(blogId: string): Promise<void> {
    return this.discovery.drop(blogId);
  }

  /**
   * Runs `work` (a reindex: the rebuild, then its catch-up through postChanged) holding the
   * blog's post changes that come in meanwhile (publishes let in beside its `site` job), which the
   * rebuild would replace; then applies them, each post as the database holds it then: never
   * older than what the catch-up applied.
   */
  async holdingChanges<T>(blog: BlogWithDomain, work: () => Promise<T>): Promise<T> {
    if (this.holding.has(blog.id)) return work();
    const held = new Set<string>();
    this.holding.set(blog.id, held);
    try {
      return await work();
    } finally {
      try {
        // Changes that come in while the held ones are applied are held too, and applied next.
        while (held.size > 0) {
          const postIds = [...held];
          held.clear();
          await this.apply(blog, await livePosts(this.deps.site, blog, postIds));
        }
      } finally {
        this.holding.delete(blog.id);
      }
    }
  }

  /**
   * Both indexes afresh from the database: the API index from every published post, their text
   * read a run at a time as the index workers take it and let go once indexed, so a reindex never
   * holds every post's text; the static index laid out from the new segments, which needs only
   * what it lists of each post; then the blog's discovery entries. Returns how many posts they hold and
   * the static index's changed keys.
   */
  async rebuild(blog: BlogWithDomain): Promise<{ count: number; changedKeys: string[] }> {
    const ids = await this.documents.ids(blog);
    let read = 0;
    const built = await this.deps.search.rebuildFrom(blog.slug, {
      count: ids.length,
      read: async (from, to) => {
        const docs = await this.documents.ofIds(blog, ids.slice(from, to));
        read += docs.length;
        return docs;
      },
    });
    // What the static index lists of each post is in the segments' document tables: not kept
    // aside while they are built (a second copy of every post's fields at 100,000 posts).
    const listed = built ? listedDocsOf(built) : null;
    const changedKeys = await this.staticSearch.rebuild(blog, built && listed ? { listed, built } : undefined);
    // An imported blog's first render, a reindex: the discovery entries are made afresh too.
    await this.discovery.refill(blog);
    return { count: listed ? listed.length : read, changedKeys };
  }

  /** Builds the static index of a blog that has none yet (made before it existed); returns the keys it changed. */
  ensureStatic(blog: BlogWithDomain): Promise<string[]> {
    return this.staticSearch.ensure(blog);
  }

  /** Drops the API index; the static index's files go with the rest of the blog's objects. */
  async drop(blogSlug: string): Promise<void> {
    // A queued static write must not land after the blog's objects are deleted.
    await this.staticQueue.idle();
    return this.deps.search.drop(blogSlug);
  }
}
