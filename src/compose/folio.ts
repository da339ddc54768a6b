/** What compose() takes and what it builds: the object graph of one Folio process (compose/compose.ts). */
import type { RequestListener } from 'node:http';
import type { Config } from '../config/config.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { SiteStore } from '../storage/siteStore.js';
import type { BatchHandler, JobHandler, JobRunner, RunBeside } from '../publish/jobs/jobRunner.js';
import type { Publishing } from '../publish/publishing.js';
import type { SearchIndexUpdater } from '../search/ports.js';
import type { DomainResolver, DomainsService } from '../services/domains.js';
import type { CdnPurger } from '../cdn/cdnPurger.js';
import type { Lookup } from '../webhooks/addressGuard.js';
import type { DeliveryLimits, WebhookDispatcher } from '../webhooks/dispatcher.js';
import type { ContentRenderer } from '../content/contentRenderer.js';
import type { PublicUrlMode } from '../services/publicUrlSettings.js';
import type { Db } from '../db/database.js';
import type { AccountsService } from '../services/accounts.js';
import type { ApiKeysService } from '../services/apiKeys.js';
import type { BlogsService } from '../services/blogs.js';
import type { PostsService } from '../services/posts.js';
import type { PostRevisionsService } from '../services/postRevisions.js';
import type { MediaService } from '../services/media.js';
import type { PostTransitions } from '../services/postTransitions.js';
import type { SiteUrls } from '../domain/siteUrls.js';
import type { HeavyWork } from '../heavyWork/heavyWork.js';
import type { Metrics } from '../metrics/metrics.js';
import type { createApp } from '../http/app.js';
import type { WarmUp } from '../warmup/warmUp.js';
import type { Backups } from '../backup/backups.js';
import type { AccountsRepo } from '../db/accountsRepo.js';
import type { ApiKeysRepo } from '../db/apiKeysRepo.js';
import type { BlogsRepo } from '../db/blogsRepo.js';
import type { PostsRepo } from '../db/postsRepo.js';
import type { PostRevisionsRepo } from '../db/postRevisionsRepo.js';
import type { DomainsRepo } from '../db/domainsRepo.js';
import type { JobsRepo } from '../db/jobsRepo.js';
import type { MediaRepo } from '../db/mediaRepo.js';
import type { DiscoveryIndex } from '../search/discovery/ports.js';
import type { WebhooksRepo } from '../db/webhooksRepo.js';
import type { WebhookQueueRepo } from '../db/webhookQueueRepo.js';
import type { BlogSearcher } from '../search/ports.js';
import type { Analytics } from './analytics.js';
import type { SessionsRepo } from '../db/sessionsRepo.js';
import type { SqlClient } from '../db/sql/sqlClient.js';
import type { LoginLinksRepo } from '../db/loginLinksRepo.js';
import type { SessionsService } from '../services/sessions.js';
import type { LoginLinksService } from '../services/loginLinks.js';
import type { AccountPasswords } from '../services/accountPasswords.js';

export interface Repos {
  accounts: AccountsRepo;
  keys: ApiKeysRepo;
  blogs: BlogsRepo;
  posts: PostsRepo;
  revisions: PostRevisionsRepo;
  domains: DomainsRepo;
  jobs: JobsRepo;
  media: MediaRepo;
  webhooks: WebhooksRepo;
  /** Deliveries queued inside the transactions of post changes. */
  webhookQueue: WebhookQueueRepo;
  /** GET /v1/discover's index across blogs (behind the DiscoveryIndex port). */
  discovery: DiscoveryIndex;
  /** Dashboard sign-in (docs/dashboard.md): sessions and one-time links. */
  sessions: SessionsRepo;
  loginLinks: LoginLinksRepo;
}

export interface ComposeOptions {
  config: Config;
  logger: Logger;
  clock?: Clock;
  /** Replaces the store FOLIO_STORAGE picks (tests: a store on a test server). */
  store?: SiteStore;
  /** Replaces the publisher as the job handler (tests of the job mechanics). */
  jobHandler?: JobHandler;
  /** With `jobHandler`: replaces the handler of folded post jobs; without it a replaced handler runs every job alone. */
  jobBatchHandler?: BatchHandler['run'];
  /** With `jobHandler`: replaces the handler of post jobs run beside a blog's full render. */
  jobBesideHandler?: RunBeside;
  /** Replaces the search engine built on the store (tests of other parts). */
  search?: { searcher: BlogSearcher; updater: SearchIndexUpdater };
  resolver?: DomainResolver;
  /** How long the connection waits for a lock inside SQLite (the CLI waits; the server must not). */
  busyTimeoutMs?: number;
  /** Replaces the purger FOLIO_CDN picks (tests: a purger pointed at a test server). */
  cdn?: CdnPurger;
  /** Replaces DNS for webhook URLs (tests: names that resolve to chosen addresses). */
  webhookLookup?: Lookup;
  /** Replaces the webhook deliveries' deadline and slots (tests: short deadlines, few slots). */
  webhookLimits?: Partial<DeliveryLimits>;
  /** Replaces the pooled Markdown renderer (tests of its fairness and failures). */
  content?: ContentRenderer;
  /**
   * Settles FOLIO_SERVICE_DOMAIN / FOLIO_PUBLIC_SCHEME against the values recorded in the
   * database (main.ts: 'server', the CLI: 'cli'); without it `config` is used as given.
   */
  publicUrls?: PublicUrlMode;
}

/** A Folio process without its HTTP app: what the CLI composes (compose/core.ts). */
export interface FolioCore {
  config: Config;
  db: Db;
  /** The query seam every repository queries through (src/db/sql/sqlClient.ts). */
  sql: SqlClient;
  clock: Clock;
  logger: Logger;
  repos: Repos;
  accounts: AccountsService;
  apiKeys: ApiKeysService;
  /** People signed in to the dashboard, and the one-time links that sign them in. */
  sessions: SessionsService;
  loginLinks: LoginLinksService;
  /** Accounts' dashboard passwords: set, changed, checked at sign-in. */
  passwords: AccountPasswords;
  blogs: BlogsService;
  posts: PostsService;
  media: MediaService;
  /** Sends webhook deliveries (`idle()` waits for them too). */
  webhooks: WebhookDispatcher;
  transitions: PostTransitions;
  revisions: PostRevisionsService;
  domains: DomainsService;
  runner: JobRunner;
  /** What the runner does with a job unless ComposeOptions.jobHandler replaced it: publishing, or removing a deleted image's objects. */
  handleJob: JobHandler;
  /** What the runner does with folded post jobs unless ComposeOptions.jobBatchHandler replaced it. */
  handleJobs: BatchHandler['run'];
  /** What the runner does with post jobs run beside a full render unless ComposeOptions.jobBesideHandler replaced it. */
  handleJobsBeside: RunBeside;
  urls: SiteUrls;
  store: SiteStore;
  publisher: Publishing;
  content: ContentRenderer;
  heavy: HeavyWork;
  /** Prometheus series of this instance (GET /metrics); `countPurgeError` is the CDN purger's hook. */
  metrics: Metrics;
  /** Records the render fingerprint; a changed theme or renderer queues every blog's re-render. */
  reRenderAfterUpgrade(): Promise<number>;
  /** A CLI command re-rendered the blog's pages and indexes (`pages`) or only its indexes: the server's next start leaves it out. */
  recordRenderedByCommand(blogId: string, what: { pages: boolean }): Promise<void>;
  /** Search indexes and listings of recently used blogs: recorded (every minute, at close) and loaded again after a start. */
  warmUp: WarmUp;
  /** What the search cache holds (blogs least recently used first). */
  searchCacheStats(): { bytes: number; blogs: string[] };
  /** Reader analytics: the beacon's counting, its flush (timer started by compose()) and the API service. */
  analytics: Analytics;
  /** Snapshots of the database into the store (FOLIO_BACKUP_INTERVAL runs `scheduled`). */
  backups: Backups;
  /**
   * Removes what killed processes left (at start, README "Backups and restore"): scratch copies
   * of backups in the data dir, and the folder store's temp files of interrupted writes.
   */
  removeLeftovers(): Promise<{ backups: string[]; temps: string[] }>;
  /** The scheduler's per-second work, callable directly. */
  tick(): Promise<void>;
  /**
   * Resolves once no background work is left: publish jobs, the search index and static search
   * writes they started, backups, webhook deliveries (tests wait with it before they look).
   */
  idle(): Promise<void>;
  /**
   * Closes what only writing needs, for a server at rest (warmup/rest.ts): SQLite's write
   * connection and the checkpointer's thread. The next write opens both again.
   */
  restDatabase(): Promise<void>;
  /** At server start: refuses a store other than the recorded one, records it on a new data dir (storeSettings.ts). */
  settleStore(): Promise<void>;
  close(): Promise<void>;
}

/** The whole process: the core and the HTTP app (compose/compose.ts). */
export interface Folio extends FolioCore {
  /** The Koa app (built in src/http; nothing outside src/http imports Koa). */
  app: ReturnType<typeof createApp>;
  /** What the HTTP server serves: the sites' view beacons, then the app (main.ts, the tests). */
  listener: RequestListener;
}
