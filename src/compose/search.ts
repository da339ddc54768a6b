/** The search part of the composition root: the query cache /search reads and the writer publishing updates. */
import type { Config } from '../config/config.js';
import type { Logger } from '../lib/logger.js';
import type { SiteStore } from '../storage/siteStore.js';
import type { HeavyWork } from '../heavyWork/heavyWork.js';
import type { SearchIndexUpdater } from '../search/ports.js';
import { SearchIndexCache } from '../search/searchIndexCache.js';
import { SearchIndexWriter } from '../search/searchIndexWriter.js';
import { pooledSearchWork, type PooledSearchWork } from '../search/pooledSearchWork.js';
import type { ComposeOptions } from './folio.js';
import type { BlogSearcher } from '../search/ports.js';
import { holdingBlogs, type BlogLeases } from '../publish/jobs/blogLeases.js';

export interface Search {
  /** Segment building, merging and decoding on the worker threads. */
  work: PooledSearchWork;
  cache: SearchIndexCache;
  writer: SearchIndexWriter;
  /** What /search and publishing use: the cache and the writer unless a test replaced them. */
  searcher: BlogSearcher;
  updater: SearchIndexUpdater;
}

export function composeSearch(
  deps: { config: Config; store: SiteStore; heavy: HeavyWork; logger: Logger; leases?: BlogLeases | undefined },
  override: ComposeOptions['search'],
): Search {
  const work = pooledSearchWork(deps.heavy);
  // One cache per process: the writer installs what it wrote, so /search reads its own writes.
  const cache = new SearchIndexCache(deps.store, { maxBytes: deps.config.searchCacheBytes, decode: work.decode });
  const writer = new SearchIndexWriter(deps.store, {
    cache,
    onBackgroundError: (err, blog) => deps.logger.warn({ err, blog }, 'search index merge failed; the index stays correct, only unmerged'),
    buildSegment: work.buildSegment,
    mergeSegments: work.mergeSegments,
    // With several nodes, a background merge holds its blog like a job does.
    ...(deps.leases ? { hold: holdingBlogs(deps.leases) } : {}),
  });
  const used = override ?? { searcher: cache, updater: writer };
  return { work, cache, writer, searcher: used.searcher, updater: used.updater };
}
