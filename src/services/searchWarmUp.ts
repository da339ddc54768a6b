/**
 * Keeps the blogs whose search indexes were in memory across a restart (issue 12, item 2): the
 * cache's most recently used blogs are recorded in the settings table (every minute when they
 * changed, and at shutdown), and after the next start they are loaded again in the background,
 * most recent first, until the cache is four fifths full. Their first query and first publish
 * then find the index in memory instead of reading and decoding all of it on the request.
 *
 * Readiness never waits: the server calls `warm` after it listens, segments are decoded on the
 * worker pool, and a query for a blog being warmed shares that load (SearchIndexCache).
 */
import type { SettingsRepo } from '../db/settingsRepo.js';
import type { Logger } from '../logger.js';
import { isoNow, type Clock } from '../clock.js';

const KEY = 'search_recent_blogs';
/** Blogs remembered; more than a budget of small blogs could hold is never needed. */
const REMEMBERED = 500;
/** Warming stops here, leaving room for blogs that are asked for before the warm ones. */
const FILL = 0.8;

/** What the warm-up needs of the search cache (SearchIndexCache). */
export interface WarmableCache {
  readonly maxBytes: number;
  stats(): { bytes: number; blogs: string[] };
  snapshot(blogSlug: string): Promise<unknown>;
}

export class SearchWarmUp {
  private recorded: string | null = null;

  constructor(
    private readonly deps: { settings: SettingsRepo; cache: WarmableCache; clock: Clock; logger: Logger },
  ) {}

  /** Records the cache's blogs, most recently used first, when they changed since last time. */
  remember(): void {
    const blogs = JSON.stringify(this.deps.cache.stats().blogs.reverse().slice(0, REMEMBERED));
    if (blogs === (this.recorded ?? this.deps.settings.get(KEY))) return;
    this.deps.settings.set(KEY, blogs, isoNow(this.deps.clock));
    this.recorded = blogs;
  }

  /** Loads the remembered blogs' indexes, most recent first; returns the blogs it loaded. */
  async warm(): Promise<string[]> {
    const { cache, logger } = this.deps;
    const blogs = this.remembered();
    const loaded: string[] = [];
    for (const blog of blogs) {
      if (cache.stats().bytes >= FILL * cache.maxBytes) break;
      try {
        if (await cache.snapshot(blog)) loaded.push(blog);
      } catch (err) {
        // A store that cannot be read now: the blog loads on its first query, as without warm-up.
        logger.warn({ err, blog }, 'search warm-up could not load an index; it loads on first use');
      }
    }
    if (loaded.length > 0) logger.info({ blogs: loaded.length, bytes: cache.stats().bytes }, 'search indexes of recently used blogs loaded');
    return loaded;
  }

  private remembered(): string[] {
    const raw = this.deps.settings.get(KEY);
    if (!raw) return [];
    try {
      const value: unknown = JSON.parse(raw);
      return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
    } catch {
      return [];
    }
  }
}
