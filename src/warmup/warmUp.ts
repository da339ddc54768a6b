/**
 * Keeps what was in memory across a restart: the blogs whose search indexes and whose publishing
 * listings (publish/listing/listingCache.ts) were loaded.
 *
 * Search: the cache's most recently used blogs are recorded in the settings table (every minute
 * when they changed, and at shutdown), and after the next start they are loaded again in the
 * background, most recent first, while the cache is less than four fifths full and the next
 * index fits (SearchIndexCache#warm never evicts, and leaves the cache's order as it was). Their
 * first query and first publish then find the index in memory instead of reading and decoding
 * all of it on the request.
 *
 * Listings: each listing that changed is saved (a snapshot of its posts' ids, dates and tags),
 * and the most recently published blogs (at most LISTINGS) are restored from theirs after the
 * next start, least recent first so the listing cache's own eviction keeps the most recent. A
 * blog's first publish restores its listing itself when the warm-up has not come to it yet:
 * either way it reads the changes since and the rows of the posts its pages show, not every post.
 *
 * Order: the listings first, at once (cheap, and what a client publishing right after a restart
 * needs), then in quiet moments a dry run of each of those blogs' next publish, then the search
 * indexes. Readiness never waits: the server calls `warm` after it answers its first request,
 * segments are decoded on the worker pool, and a query for a blog being warmed shares that load
 * (SearchIndexCache).
 */
import type { SettingsRepo } from '../db/settingsRepo.js';
import type { Logger } from '../lib/logger.js';
import { isoNow, type Clock } from '../lib/clock.js';
import type { WarmablePublishing } from '../publish/warmablePublishing.js';

const KEY = 'search_recent_blogs';
const LISTINGS_KEY = 'listing_recent_blogs';
/** Listings warmed: the listing cache holds 200,000 posts over all blogs. */
const LISTINGS = 20;
/** Blogs remembered; more than a budget of small blogs could hold is never needed. */
const REMEMBERED = 500;
/** Warming fills the budget to here, leaving room for blogs asked for before the warm ones. */
const FILL = 0.8;

/** What the warm-up needs of the search cache (SearchIndexCache). */
export interface WarmableCache {
  readonly maxBytes: number;
  stats(): { bytes: number; blogs: string[] };
  warm(blogSlug: string): Promise<boolean>;
  release(): number;
}

export interface WarmUpDeps {
  settings: SettingsRepo;
  cache: WarmableCache;
  /** Publishing's listings, and what its next publish of a blog reads. */
  listings: WarmablePublishing;
  clock: Clock;
  logger: Logger;
}

export class WarmUp {
  private readonly recorded = new Map<string, string>();

  constructor(private readonly deps: WarmUpDeps) {}

  /**
   * Records both lists, most recently used first, when they changed since last time, and saves
   * the listings that changed: a restart restores them instead of reading every post.
   */
  async remember(): Promise<void> {
    await this.record(KEY, this.deps.cache.stats().blogs.reverse().slice(0, REMEMBERED));
    await this.record(LISTINGS_KEY, this.deps.listings.recentListings().slice(0, LISTINGS));
    await this.deps.listings.saveListings(isoNow(this.deps.clock));
  }

  /**
   * The other direction, for a server at rest (warmup/rest.ts): records and saves as `remember`
   * does, then lets go of the listings, the search indexes and what their writes keep. The lists stay recorded (an empty
   * cache records nothing), so the next start still warms them; until then the next publish of a
   * blog restores its listing from the snapshot just saved, and its next query loads its index.
   */
  async rest(): Promise<{ searchBytes: number; listings: number; indexStates: number }> {
    await this.remember();
    const listings = this.deps.listings.releaseListings();
    return { listings, indexStates: this.deps.listings.releaseIndexStates(), searchBytes: this.deps.cache.release() };
  }

  /**
   * Loads what was remembered. First, at once, what the remembered blogs' first publish reads
   * (listings, a few hundred rows each, index states): cheap, and a client publishing right after
   * a restart needs it before anything else. Then, each after `whenQuiet` (the server: a moment
   * without requests), a dry run of each of those blogs' next publish and the search indexes:
   * loading a big blog's index would otherwise take the CPU from that first publish.
   */
  async warm(options: { whenQuiet?: () => Promise<void> } = {}): Promise<{ search: string[]; listings: string[] }> {
    const whenQuiet = options.whenQuiet ?? (async () => {});
    const listings: string[] = [];
    for (const blogId of (await this.remembered(LISTINGS_KEY)).slice(0, LISTINGS).reverse()) {
      try {
        if (await this.deps.listings.prepareForPublishing(blogId)) listings.unshift(blogId);
      } catch (err) {
        this.deps.logger.warn({ err, blogId }, 'listing warm-up failed; the listing loads on first publish');
      }
    }
    // Least recent first, like the preparing: each one's listing becomes the cache's most recent.
    for (const blogId of [...listings].reverse()) {
      await whenQuiet();
      await this.deps.listings.dryRunPublish(blogId).catch((err: unknown) => this.deps.logger.warn({ err, blogId }, 'dry run of a publish failed'));
    }
    const search = await this.warmSearch(whenQuiet);
    return { search, listings };
  }

  private async record(key: string, blogs: readonly string[]): Promise<void> {
    // Nothing in memory (a fresh process, or one at rest): what was recorded stays true enough.
    if (blogs.length === 0) return;
    const value = JSON.stringify(blogs);
    const previous = this.recorded.get(key) ?? (await this.deps.settings.get(key));
    if (value === previous) return;
    await this.deps.settings.set(key, value, isoNow(this.deps.clock));
    this.recorded.set(key, value);
  }

  /** Loads the remembered blogs' indexes (see above); returns the blogs loaded, most recent first. */
  private async warmSearch(whenQuiet: () => Promise<void>): Promise<string[]> {
    const { cache, logger } = this.deps;
    const loaded: string[] = [];
    for (const blog of await this.remembered(KEY)) {
      await whenQuiet();
      if (cache.stats().bytes >= FILL * cache.maxBytes) break;
      try {
        if (await cache.warm(blog)) loaded.push(blog);
      } catch (err) {
        // A store that cannot be read now: the blog loads on its first query, as without warm-up.
        logger.warn({ err, blog }, 'search warm-up could not load an index; it loads on first use');
      }
    }
    if (loaded.length > 0) logger.info({ blogs: loaded.length, bytes: cache.stats().bytes }, 'search indexes of recently used blogs loaded');
    return loaded;
  }

  private async remembered(key: string): Promise<string[]> {
    const raw = await this.deps.settings.get(key);
    if (!raw) return [];
    try {
      const value: unknown = JSON.parse(raw);
      return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
    } catch {
      return [];
    }
  }
}
