/**
 * The one interface through which the warm-up after a restart (src/warmup/) reaches publishing:
 * it loads ahead and rehearses, never writes. A client that publishes right after a restart then
 * finds its blog's listing, indexes and render code ready.
 */
import type { AccountsRepo } from '../db/accountsRepo.js';
import type { BlogsRepo } from '../db/blogsRepo.js';
import type { SiteUrls } from '../domain/siteUrls.js';
import type { ListingCache } from './listing/listingCache.js';
import { listedByNextPost, renderPostChange } from './postChange.js';
import { blogLanguage } from './render/renderContext.js';
import { tagCollator } from './render/renderIndexPages.js';
import type { Theme } from './render/renderTheme.js';
import { LANGUAGE_TIPPED, type PostChangeLoader } from './stages/loadPostChange.js';
import { planOf, toSiteBlog } from './stages/loadSite.js';
import type { SearchIndexes } from './stages/searchIndexes.js';

export interface WarmablePublishing {
  /** Blog ids whose listings are in memory, most recently used first. */
  recentListings(): string[];
  /** Saves the listings that changed since last time (listing/listingCache.ts); returns how many. */
  saveListings(now: string): Promise<number>;
  /** Lets go of the listings in memory (a server at rest, after `saveListings`); returns how many. */
  releaseListings(): number;
  /**
   * Lets go of what both search indexes keep between a blog's writes (the static index's state,
   * naming every post; the API index's segment ids), after `releaseListings`; returns how many
   * static states. The next write of a blog reads its own again, as after a restart.
   */
  releaseIndexStates(): number;
  /**
   * Loads what a blog's first publish would otherwise wait for: its listing and the rows its
   * pages list, the state of both search indexes, the theme (compiled on first use), the collator
   * its tag index sorts with. False when the blog is gone.
   */
  prepareForPublishing(blogId: string): Promise<boolean>;
  /**
   * A dry run of the blog's next publish: an edit of its newest post loaded, rendered and thrown
   * away, and its search document built and encoded, written nowhere, so that the real one finds
   * the code compiled. Skipped once the blog has published since the start.
   */
  dryRunPublish(blogId: string): Promise<void>;
}

export interface WarmablePublishingDeps {
  blogs: Pick<BlogsRepo, 'findById'>;
  accounts: Pick<AccountsRepo, 'findById'>;
  urls: SiteUrls;
  theme: Theme;
  listings: Pick<ListingCache, 'get' | 'recent' | 'save' | 'release'>;
  load: Pick<PostChangeLoader, 'load'>;
  indexes: Pick<SearchIndexes, 'warm' | 'rehearse' | 'release'>;
  /** Whether the blog ran a post job in this process: nothing is left to compile for it. */
  publishedSinceStart: (blogId: string) => boolean;
}

export function createWarmablePublishing(deps: WarmablePublishingDeps): WarmablePublishing {
  const { blogs, listings } = deps;
  return {
    recentListings: () => listings.recent(),
    saveListings: (now) => listings.save(now),
    releaseListings: () => listings.release(),
    releaseIndexStates: () => deps.indexes.release(),

    async prepareForPublishing(blogId) {
      const blog = await blogs.findById(blogId);
      if (!blog) return false;
      void deps.theme.assets;
      // The reads first, all at once: they go on while the listing is restored (synchronous work).
      const read = deps.indexes.warm(blog.slug);
      // Handled here too: a failed read must not be an unhandled rejection while the listing loads.
      read.catch(() => undefined);
      const listing = await listings.get(blogId);
      tagCollator(blogLanguage(toSiteBlog(blog, await planOf(deps.accounts, blog), deps.urls), listing.titleCounts));
      // The rows its pages list, by their places in the summary index.
      listing.prefetch(listedByNextPost(listing.posts, (segment) => listing.tagged(segment)));
      await read;
      return true;
    },

    async dryRunPublish(blogId) {
      const blog = await blogs.findById(blogId);
      if (!blog || deps.publishedSinceStart(blogId)) return;
      // The listing object is kept current in place; the load brings it up to date again.
      const listing = await listings.get(blogId);
      const newest = listing.posts[listing.posts.length - 1];
      if (!newest) return;
      const loaded = await deps.load.load(blog, newest.id, { postId: newest.id, wasLive: true });
      if (loaded === LANGUAGE_TIPPED) return;
      renderPostChange(loaded.input);
      if (loaded.live) await deps.indexes.rehearse(blog, loaded.live);
    },
  };
}
