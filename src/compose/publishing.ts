/**
 * The publishing part of the composition root: the publisher, the job runner that carries out
 * publish jobs, and what a job needs besides (removing a deleted image, the store guard).
 */
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { Db } from '../db/database.js';
import type { SettingsRepo } from '../db/settingsRepo.js';
import { ObjectHashesRepo } from '../db/objectHashesRepo.js';
import { SiteRepo } from '../db/siteRepo.js';
import { ListingSnapshotsRepo } from '../db/listingSnapshotsRepo.js';
import { JobRunner, type JobHandler } from '../publish/jobRunner.js';
import { Publisher, type SearchIndexUpdater } from '../publish/publisher.js';
import type { CachePolicy } from '../publish/render/renderHeaders.js';
import { lazyTheme } from '../publish/render/renderTheme.js';
import { renderFingerprint } from '../publish/renderFingerprint.js';
import { SEARCH_TEXT_VERSION } from '../search/searchTypes.js';
import type { PooledSearchWork } from '../search/pooledSearchWork.js';
import { StaticIndexWriter } from '../search/static/staticIndexWriter.js';
import type { CdnPurger } from '../cdn/cdnPurger.js';
import type { SiteStore } from '../storage/siteStore.js';
import type { ContentRenderer } from '../content/contentRenderer.js';
import type { Metrics } from '../metrics/metrics.js';
import type { SiteUrls } from '../services/siteUrls.js';
import { MediaRemoval } from '../services/mediaRemoval.js';
import { reRenderAfterUpgrade } from '../services/siteRenderer.js';
import { StoreWatch } from '../services/storeWatch.js';
import { templatesDir } from '../paths.js';
import type { Config } from '../config.js';
import type { Repos } from './folio.js';

interface PublisherParts {
  db: Db;
  repos: Repos;
  store: SiteStore;
  cdn: CdnPurger;
  cache: CachePolicy;
  urls: SiteUrls;
  content: ContentRenderer;
  search: SearchIndexUpdater;
  /** Builds the static search index's segments on the worker threads. */
  buildSegment: PooledSearchWork['buildSegment'];
  logger: Logger;
}

/** The one place the publisher is built: a change to what publishing needs lands here only. */
export function createPublisher(parts: PublisherParts): Publisher {
  const { db, repos, store, cache } = parts;
  return new Publisher({
    blogs: repos.blogs,
    jobs: repos.jobs,
    accounts: repos.accounts,
    site: new SiteRepo(db),
    hashes: new ObjectHashesRepo(db),
    store,
    urls: parts.urls,
    theme: lazyTheme(templatesDir),
    search: parts.search,
    content: parts.content,
    logger: parts.logger,
    cache,
    cdn: parts.cdn,
    staticSearch: new StaticIndexWriter(store, { cacheControl: cache.page, buildSegment: parts.buildSegment }),
    listingSnapshots: new ListingSnapshotsRepo(db),
    media: repos.media,
  });
}

export interface Publishing {
  publisher: Publisher;
  mediaRemoval: MediaRemoval;
  /** Stops publishing into a store the data dir no longer publishes to (moved under a running server). */
  storeWatch: StoreWatch;
  /** What the runner does with a job unless ComposeOptions.jobHandler replaced it. */
  handleJob: JobHandler;
  runner: JobRunner;
}

export function composePublishing(
  parts: PublisherParts & { config: Config; settings: SettingsRepo; clock: Clock; metrics: Metrics; jobHandler: JobHandler | undefined },
): Publishing {
  const { repos, store, cdn, urls, logger } = parts;
  const publisher = createPublisher(parts);
  const mediaRemoval = new MediaRemoval({ media: repos.media, blogs: repos.blogs, store, cdn, urls });
  const storeWatch = new StoreWatch({ settings: parts.settings, config: parts.config, logger });
  const handleJob: JobHandler = async (job) => {
    storeWatch.assertOwnStore();
    return job.kind === 'media_delete' ? mediaRemoval.handle(job) : publisher.handle(job);
  };
  const runner = new JobRunner(repos.jobs, parts.jobHandler ?? handleJob, parts.clock, logger, parts.metrics);
  return { publisher, mediaRemoval, storeWatch, handleJob, runner };
}

/** Records the render fingerprint; a changed theme, renderer or search text queues every blog's re-render. */
export function reRenderIfUpgraded(deps: { db: Db; settings: SettingsRepo; repos: Repos; clock: Clock; logger: Logger }, cache: CachePolicy): number {
  const { db, settings, repos, clock, logger } = deps;
  return reRenderAfterUpgrade({ db, settings, blogs: repos.blogs, jobs: repos.jobs, clock, logger }, renderFingerprint(templatesDir, [cache.page]), SEARCH_TEXT_VERSION);
}
