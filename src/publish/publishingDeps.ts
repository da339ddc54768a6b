/**
 * What publishing is built from (createPublishing): the repositories, stores and services the
 * composition root wires in, and the hooks tests replace.
 */
import type { AccountsRepo } from '../db/accountsRepo.js';
import type { BlogsRepo } from '../db/blogsRepo.js';
import type { JobsRepo } from '../db/jobsRepo.js';
import type { MediaRepo } from '../db/mediaRepo.js';
import type { ObjectHashesRepo } from '../db/objectHashesRepo.js';
import type { SiteRepo } from '../db/siteRepo.js';
import type { CdnPurger } from '../cdn/cdnPurger.js';
import type { ContentRenderer } from '../content/contentRenderer.js';
import type { CachePolicy } from '../domain/cacheHeaders.js';
import type { SiteUrls } from '../domain/siteUrls.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { JobMetrics } from '../metrics/metricTypes.js';
import type { DiscoveryIndex } from '../search/discovery/ports.js';
import type { SearchIndexUpdater } from '../search/ports.js';
import type { SiteStore } from '../storage/siteStore.js';
import type { CardDrawer } from './cards/cardDrawer.js';
import type { BlogLeases } from './jobs/blogLeases.js';
import type { BatchHandler, JobHandler, RunBeside } from './jobs/jobRunner.js';
import type { SummaryReader } from './listing/blogListing.js';
import type { SnapshotStore } from './listing/listingCache.js';
import type { Theme } from './render/renderTheme.js';
import type { StaticSearchMarks } from './stages/staticSearchQueue.js';
import type { StaticSearchIndex } from './stages/staticSearchSync.js';

export interface PublishingDeps {
  /** Which node writes a blog now (several nodes on PostgreSQL); without, this process writes every blog. */
  leases?: BlogLeases | undefined;
  blogs: BlogsRepo;
  /** The runner's job rows, and the post jobs a full render runs again. */
  jobs: JobsRepo;
  accounts: Pick<AccountsRepo, 'findById'>;
  site: SiteRepo;
  hashes: ObjectHashesRepo;
  store: SiteStore;
  urls: SiteUrls;
  theme: Theme;
  search: SearchIndexUpdater;
  /** GET /v1/discover's index across blogs (db/discoveryRepo.ts). */
  discovery: DiscoveryIndex;
  /** Plain text of stored HTML for the index, off the event loop for large posts. */
  content: Pick<ContentRenderer, 'searchText'>;
  logger: Logger;
  clock: Clock;
  metrics?: JobMetrics;
  /** Cache-Control of rendered pages (long at the edge when a CDN purger is configured). */
  cache: CachePolicy;
  /** Tells the CDN what a job changed (a no-op with FOLIO_CDN=none). */
  cdn: CdnPurger;
  /** The index the `/search/` page reads in the browser. */
  staticSearch: StaticSearchIndex;
  /** The blog's uploaded images, whose objects `verify` checks. */
  media: Pick<MediaRepo, 'allOfBlog'>;
  /** Saved listings: a blog's first publish after a restart then reads a few rows, not all. */
  listingSnapshots?: SnapshotStore;
  /** What a restored listing reads its posts from, synchronously (SQLite only: ListingCacheOptions.lazy). */
  lazySummaries?: SummaryReader;
  /** Draws social cards off the event loop (publish/cards/cardDrawer.ts). */
  cards: CardDrawer;
  /** FOLIO_SOCIAL_CARDS (default on): off, no page names a drawn card and none is drawn. */
  socialCards?: boolean;
  /**
   * The durable mark of a blog whose static search index may lack changes queued after their
   * publish answered (stages/staticSearchQueue.ts); kept in memory without it (tests).
   */
  staticSearchBehind?: StaticSearchMarks;
  /** The `media_delete` job, which is not publishing's (services/mediaRemoval.ts). */
  removeMedia: JobHandler;
  /** Runs before every job and may refuse it by throwing (the job then stays pending). */
  beforeJob?: () => Promise<void>;
  /** The most post jobs of a blog folded into one run (FOLIO_PUBLISH_BATCH); 1 runs each alone. */
  maxBatch?: number;
  /** Replaces `handle` as the runner's handler (tests of the job mechanics). */
  jobHandler?: JobHandler;
  /** Replaces `handleBatch` for folded post jobs beside `jobHandler`; without it, a replaced handler runs every job alone. */
  jobBatchHandler?: BatchHandler['run'];
  /** Replaces `handleBeside` beside `jobHandler` (tests that record what ran). */
  jobBesideHandler?: RunBeside;
}
