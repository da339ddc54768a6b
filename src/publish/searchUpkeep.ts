/**
 * Keeps a blog's two search indexes in step with its posts: the API's (src/search, through
 * SearchIndexUpdater) and the static one the `/search/` page reads (StaticSearchSync). The
 * publisher calls it after it has written a job's pages.
 */
import type { BlogWithDomain } from '../domain/blog.js';
import type { SiteRepo } from '../db/siteRepo.js';
import type { Logger } from '../lib/logger.js';
import type { ContentRenderer } from '../content/contentRenderer.js';
import type { ListedDocument, SearchDocument } from '../search/searchTypes.js';
import type { SegmentData } from '../search/segmentData.js';
import type { SearchIndexUpdater } from '../search/ports.js';
import type { SiteUrls } from '../domain/siteUrls.js';
import type { CdnSync } from './cdnSync.js';
import type { SitePost } from '../domain/siteTypes.js';
import { toSitePost } from './loadSite.js';
import { SearchDocuments } from './searchDocuments.js';
import { StaticSearchSync, type StaticSearchIndex } from './staticSearchSync.js';

export interface SearchUpkeepDeps {
  site: SiteRepo;
  urls: SiteUrls;
  search: SearchIndexUpdater;
  /** Plain text of stored HTML for the index, off the event loop for large posts. */
  content: Pick<ContentRenderer, 'searchText'>;
  /** The index the `/search/` page reads in the browser. */
  staticSearch: StaticSearchIndex;
  logger: Logger;
}

export class SearchUpkeep {
  private readonly documents: SearchDocuments;
  private readonly staticSearch: StaticSearchSync;

  constructor(
    private readonly deps: SearchUpkeepDeps,
    edge: CdnSync,
  ) {
    this.documents = new SearchDocuments(deps);
    this.staticSearch = new StaticSearchSync({
      index: deps.staticSearch,
      edge,
      allDocs: (blog) => this.documents.all(blog),
      onBackgroundError: (err, blog) => deps.logger.warn({ err, blog }, 'static search upkeep failed; the index stays correct and is tried again at the next write'),
    });
  }

  /** Loads what the blog's next index writes read: the static index's state, the API index's segment ids. */
  async warm(blogSlug: string): Promise<void> {
    await Promise.all([this.staticSearch.warm(blogSlug), this.deps.search.warm?.(blogSlug)]);
  }

  /** Resolves once background upkeep (static index merges) is done. */
  idle(): Promise<void> {
    return this.staticSearch.idle();
  }

  /**
   * What postChanged would compute for this post, written nowhere: its search text, and the CPU
   * side of both indexes' upserts. The warm-up's dry run of a publish after a restart.
   */
  async rehearse(blog: BlogWithDomain, live: SitePost): Promise<void> {
    const doc = await this.documents.of(blog, live);
    if (!doc) return;
    await this.deps.search.rehearse?.([doc]);
    await this.staticSearch.rehearse([doc]);
  }

  /** A post was published or edited (`live`), or left the site (`live` null). */
  async postChanged(blog: BlogWithDomain, postId: string, attempt: number, live: SitePost | null): Promise<void> {
    const doc = live ? await this.documents.of(blog, live) : null;
    if (doc) await this.deps.search.upsert(blog.slug, [doc]);
    else await this.deps.search.remove(blog.slug, [postId]);
    await this.staticSearch.postChanged(blog, postId, doc, attempt);
  }

  /** Both indexes afresh from the database; returns how many posts they hold. */
  async reindex(blog: BlogWithDomain): Promise<number> {
    // Changes committed from here on are applied again once the new indexes are in place.
    const since = this.deps.site.latestChange();
    const { listed, built } = await this.rebuildApiIndex(blog);
    await this.staticSearch.rebuild(blog, built ? { listed, built } : undefined);
    await this.catchUp(blog, since);
    return listed.length;
  }

  /**
   * Posts published, edited or taken down while the indexes were rebuilt. Another process (the
   * server, beside `folio search reindex`) wrote them into the indexes the rebuild then replaced:
   * a post published during a reindex was answered 200, found, and then no longer found. Each is
   * applied again as the database holds it now (the post_changes log, migration 004, names them);
   * applying a post twice is harmless. In the server, the blog's own jobs wait behind its reindex.
   */
  private async catchUp(blog: BlogWithDomain, since: number): Promise<void> {
    const changed = new Set(this.deps.site.changesSince(blog.id, since).map((change) => change.postId));
    const live = new Map(this.deps.site.publishedByIds([...changed]).map((row) => [row.id, row]));
    for (const postId of changed) {
      const row = live.get(postId);
      await this.postChanged(blog, postId, 0, row && row.blogId === blog.id ? toSitePost(row) : null);
    }
  }

  /** Builds the static index of a blog that has none yet (made before it existed). */
  ensureStatic(blog: BlogWithDomain): Promise<void> {
    return this.staticSearch.ensure(blog);
  }

  /**
   * The API index afresh from every published post, their text read a run at a time as the
   * index workers take it and let go once indexed (all of it at once was most of a 50,000-post
   * reindex's 1.7 GB peak). The static index is laid out from the new segments and needs only
   * what it lists of each post.
   */
  private async rebuildApiIndex(blog: BlogWithDomain): Promise<{ listed: ListedDocument[]; built: SegmentData[] | null }> {
    const ids = await this.documents.ids(blog);
    const listed = new Map<string, ListedDocument>();
    const built = await this.deps.search.rebuildFrom(blog.slug, {
      count: ids.length,
      read: async (from, to) => {
        const docs = await this.documents.ofIds(blog, ids.slice(from, to));
        for (const { body: _body, code: _code, ...rest } of docs) listed.set(rest.id, rest);
        return docs;
      },
    });
    return { listed: [...listed.values()], built: built ?? null };
  }
}
