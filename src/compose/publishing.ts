/**
 * The publishing part of the composition root: publishing itself (its job runner, pipelines and
 * stages), and what a job needs besides (removing a deleted image, the store guard).
 */
import type { SqlClient } from '../db/sql/sqlClient.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { Db } from '../db/database.js';
import type { SettingsRepo } from '../db/settingsRepo.js';
import { ObjectHashesRepo } from '../db/objectHashesRepo.js';
import { SiteRepo } from '../db/siteRepo.js';
import { SqliteSummaryReader } from '../db/summaryReader.js';
import { ListingSnapshotsRepo } from '../db/listingSnapshotsRepo.js';
import type { BatchHandler, JobHandler, RunBeside } from '../publish/jobs/jobRunner.js';
import type { BlogLeases } from '../publish/jobs/blogLeases.js';
import { createPublishing, type Publishing } from '../publish/publishing.js';
import type { SearchIndexUpdater } from '../search/ports.js';
import type { CachePolicy } from '../domain/cacheHeaders.js';
import { lazyTheme } from '../publish/render/renderTheme.js';
import type { StaticSearchMarks } from '../publish/stages/staticSearchQueue.js';
import { recordRenderedOutsideServer, renderFingerprint, reRenderAfterUpgrade } from '../publish/reRenderAfterUpgrade.js';
import { RenderStampsRepo } from '../db/renderStampsRepo.js';
import { SEARCH_TEXT_VERSION } from '../search/searchTypes.js';
import type { PooledSearchWork } from '../search/pooledSearchWork.js';
import { StaticIndexWriter } from '../search/static/staticIndexWriter.js';
import type { CdnPurger } from '../cdn/cdnPurger.js';
import type { SiteStore } from '../storage/siteStore.js';
import type { ContentRenderer } from '../content/contentRenderer.js';
import type { CardDrawer } from '../publish/cards/cardDrawer.js';
import type { Metrics } from '../metrics/metrics.js';
import type { SiteUrls } from '../domain/siteUrls.js';
import { MediaRemoval } from '../services/mediaRemoval.js';
import { StoreWatch } from '../services/storeWatch.js';
import { templatesDir } from '../lib/paths.js';
import type { Config } from '../config/config.js';
import type { Repos } from './folio.js';

interface PublishingParts {
  config: Config;
  /** SQLite's connection, for the listing's synchronous reads; null on PostgreSQL. */
  sqlite: Db | null;
  sql: SqlClient;
  repos: Repos;
  settings: SettingsRepo;
  store: SiteStore;
  cdn: CdnPurger;
  cache: CachePolicy;
  urls: SiteUrls;
  content: ContentRenderer;
  /** Draws social cards on the shared worker pool. */
  cards: CardDrawer;
  search: SearchIndexUpdater;
  /** Builds the static search index's segments on the worker threads. */
  buildSegment: PooledSearchWork['buildSegment'];
  rewriteChunk: PooledSearchWork['rewriteChunk'];
  rewritesDone: PooledSearchWork['rewritesDone'];
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  /** Replaces the job handler (tests of the job mechanics). */
  jobHandler: JobHandler | undefined;
  /** Replaces the handler of folded post jobs beside `jobHandler`. */
  jobBatchHandler: BatchHandler['run'] | undefined;
  /** Replaces the handler of post jobs run beside a full render beside `jobHandler`. */
  jobBesideHandler: RunBeside | undefined;
  /** Which node writes a blog now (several nodes on PostgreSQL). */
  leases: BlogLeases | undefined;
}

export interface PublishingPart {
  publisher: Publishing;
  mediaRemoval: MediaRemoval;
  /** Stops publishing into a store the data dir no longer publishes to (moved under a running server). */
  storeWatch: StoreWatch;
}

/** The one place publishing is built: a change to what publishing needs lands here only. */
export function composePublishing(parts: PublishingParts): PublishingPart {
  const { repos, store, cache, cdn, urls, logger } = parts;
  const mediaRemoval = new MediaRemoval({ media: repos.media, blogs: repos.blogs, store, cdn, urls });
  const storeWatch = new StoreWatch({ settings: parts.settings, config: parts.config, logger });
  const publisher = createPublishing({
    leases: parts.leases,
    blogs: repos.blogs,
    jobs: repos.jobs,
    accounts: repos.accounts,
    site: new SiteRepo(parts.sql),
    ...(parts.sqlite ? { lazySummaries: new SqliteSummaryReader(parts.sqlite) } : {}),
    hashes: new ObjectHashesRepo(parts.sql),
    store,
    urls,
    theme: lazyTheme(templatesDir),
    search: parts.search,
    discovery: repos.discovery,
    content: parts.content,
    cards: parts.cards,
    socialCards: parts.config.socialCards,
    maxBatch: parts.config.publishBatch,
    logger,
    clock: parts.clock,
    metrics: parts.metrics,
    cache,
    cdn,
    staticSearch: new StaticIndexWriter(store, {
      cacheControl: cache.page,
      buildSegment: parts.buildSegment,
      rewriteChunk: parts.rewriteChunk,
      rewritesDone: parts.rewritesDone,
    }),
    listingSnapshots: new ListingSnapshotsRepo(parts.sql),
    media: repos.media,
    staticSearchBehind: staticSearchMarks(parts.settings, parts.clock),
    removeMedia: (job) => mediaRemoval.handle(job),
    beforeJob: () => storeWatch.assertOwnStore(),
    ...(parts.jobHandler ? { jobHandler: parts.jobHandler } : {}),
    ...(parts.jobBatchHandler ? { jobBatchHandler: parts.jobBatchHandler } : {}),
    ...(parts.jobBesideHandler ? { jobBesideHandler: parts.jobBesideHandler } : {}),
  });
  return { publisher, mediaRemoval, storeWatch };
}

/** Records the render fingerprint; a changed theme, renderer or search text queues every blog's re-render. */
export function reRenderIfUpgraded(
  deps: { sql: SqlClient; settings: SettingsRepo; repos: Repos; clock: Clock; logger: Logger },
  cache: CachePolicy,
): Promise<number> {
  const { sql, settings, repos, clock, logger } = deps;
  return reRenderAfterUpgrade(
    { sql, settings, stamps: new RenderStampsRepo(sql), blogs: repos.blogs, jobs: repos.jobs, clock, logger },
    serverFingerprint(cache),
    SEARCH_TEXT_VERSION,
  );
}

/**
 * After `folio site rebuild` (pages and indexes) or `folio search reindex` (indexes): stamps the
 * blog with the same fingerprint and search text version the server's start compares, so the
 * server does not do the whole blog's work again.
 */
export function recordRenderedByCommand(
  deps: { sql: SqlClient; repos: Repos; clock: Clock },
  cache: CachePolicy,
  blogId: string,
  what: { pages: boolean },
): Promise<void> {
  return recordRenderedOutsideServer(
    { stamps: new RenderStampsRepo(deps.sql), jobs: deps.repos.jobs, clock: deps.clock },
    blogId,
    what.pages ? { fingerprint: serverFingerprint(cache), searchTextVersion: SEARCH_TEXT_VERSION } : { searchTextVersion: SEARCH_TEXT_VERSION },
  );
}

function serverFingerprint(cache: CachePolicy): string {
  return renderFingerprint(templatesDir, [cache.page]);
}

/** One settings row per blog whose static search index may lack queued changes (publish/stages/staticSearchQueue.ts). */
function staticSearchMarks(settings: SettingsRepo, clock: Clock): StaticSearchMarks {
  const prefix = 'static_search_behind:';
  return {
    get: async (blogId) => (await settings.get(`${prefix}${blogId}`)) === '1',
    set: (blogId, behind) => settings.set(`${prefix}${blogId}`, behind ? '1' : '0', clock.now().toISOString()),
    marked: async () => (await settings.keysWithValue(prefix, '1')).map((key) => key.slice(prefix.length)),
  };
}
