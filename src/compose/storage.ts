/**
 * The storage part of the composition root: the database with its repositories and the settled
 * configuration, and the site store and CDN purger every publish writes through.
 */
import type { Config } from '../config/config.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import { SERVER_BUSY_TIMEOUT_MS, type Db } from '../db/database.js';
import { AccountsRepo } from '../db/accountsRepo.js';
import { ApiKeysRepo } from '../db/apiKeysRepo.js';
import { BlogsRepo } from '../db/blogsRepo.js';
import type { ChangeVersion } from '../db/versionedCache.js';
import type { Checkpointer } from '../db/checkpointer.js';
import { DomainsRepo } from '../db/domainsRepo.js';
import { JobsRepo } from '../db/jobsRepo.js';
import { PostsRepo } from '../db/postsRepo.js';
import { PostRevisionsRepo } from '../db/postRevisionsRepo.js';
import { MediaRepo } from '../db/mediaRepo.js';
import { DiscoveryRepo } from '../db/discoveryRepo.js';
import { WebhooksRepo } from '../db/webhooksRepo.js';
import { WebhookQueueRepo } from '../db/webhookQueueRepo.js';
import { SettingsRepo } from '../db/settingsRepo.js';
import { resolvePublicUrlSettings } from '../services/publicUrlSettings.js';
import { checkStoreForCommand, settleStoreForServer } from '../services/storeSettings.js';
import { cachePolicy, type CachePolicy } from '../domain/cacheHeaders.js';
import { createCdnPurger } from '../cdn/createCdnPurger.js';
import type { CdnPurger } from '../cdn/cdnPurger.js';
import type { SiteStore } from '../storage/siteStore.js';
import { FsSiteStore } from '../storage/fsSiteStore.js';
import { OPEN_FOR_MS, StoreCircuit } from '../storage/storeCircuit.js';
import type { Metrics } from '../metrics/metrics.js';
import { CountedSiteStore } from '../metrics/countedStore.js';
import { CountedPurger } from '../metrics/countedPurger.js';
import type { Backups } from '../backup/backups.js';
import { SessionsRepo } from '../db/sessionsRepo.js';
import { LoginLinksRepo } from '../db/loginLinksRepo.js';
import type { SqlClient } from '../db/sql/sqlClient.js';
import { createSiteStore } from './adapters.js';
import { openConfiguredDatabase } from './database.js';
import { PostgresDiscoveryRepo } from '../db/postgresDiscoveryRepo.js';
import type { ComposeOptions, Repos } from './folio.js';

/**
 * The repositories, all on the query seam. `version` is what the cached lookups (a key by hash, a
 * blog by id) ask whether anything changed since they were filled; without it they read every time.
 */
export function createRepos(sql: SqlClient, version: ChangeVersion | undefined): Repos {
  return {
    accounts: new AccountsRepo(sql),
    keys: new ApiKeysRepo(sql, version),
    blogs: new BlogsRepo(sql, version),
    posts: new PostsRepo(sql),
    revisions: new PostRevisionsRepo(sql),
    domains: new DomainsRepo(sql),
    jobs: new JobsRepo(sql),
    media: new MediaRepo(sql),
    webhooks: new WebhooksRepo(sql),
    webhookQueue: new WebhookQueueRepo(sql),
    discovery: sql.dialect === 'postgres' ? new PostgresDiscoveryRepo(sql) : new DiscoveryRepo(sql),
    sessions: new SessionsRepo(sql),
    loginLinks: new LoginLinksRepo(sql),
  };
}

/** The open database and what this process settled from it. */
export interface Data {
  /** SQLite's connection (reads, and the parts that are SQLite's by nature); null on PostgreSQL. */
  sqlite: Db | null;
  /** The query seam every repository queries through. */
  sql: SqlClient;
  repos: Repos;
  settings: SettingsRepo;
  /** `options.config` with the public URL settings the database recorded (ComposeOptions.publicUrls). */
  config: Config;
  /** WAL checkpoints off the event loop on SQLite; nothing on PostgreSQL. */
  startCheckpointer(): Checkpointer;
  close(): Promise<void>;
}

/** Opens the database (running its migrations) and settles the configuration against it. */
export async function openData(options: Pick<ComposeOptions, 'config' | 'logger' | 'busyTimeoutMs' | 'publicUrls' | 'store'>, clock: Clock): Promise<Data> {
  const { logger } = options;
  const database = await openConfiguredDatabase(options.config, {
    busyTimeoutMs: options.busyTimeoutMs ?? SERVER_BUSY_TIMEOUT_MS,
    onMigrated: (names) =>
      logger.info({ migrations: names }, `applied ${names.length} database migration${names.length === 1 ? '' : 's'}: ${names.join(', ')}`),
    // A command is short-lived: it reads keys and blogs from the database rather than listen.
    ...(options.publicUrls === 'cli' ? {} : { listenForChanges: logger }),
  });
  const { sql } = database;
  const repos = createRepos(sql, database.version);
  const settings = new SettingsRepo(sql);
  // Settled before anything uses it: every URL this process builds comes from this config.
  try {
    const settle = { sql, settings, blogs: repos.blogs, jobs: repos.jobs, clock, logger };
    const config = options.publicUrls ? await resolvePublicUrlSettings(settle, options.config, options.publicUrls) : options.config;
    // A command never writes into another store than the server's (the server checks at start: settleStore).
    if (options.publicUrls === 'cli' && !options.store) await checkStoreForCommand(settings, config);
    return { sqlite: database.sqlite, sql, repos, settings, config, startCheckpointer: database.startCheckpointer, close: database.close };
  } catch (err) {
    await database.close();
    throw err;
  }
}

export interface Stores {
  /** With a purger the edge may keep pages long: every publish tells it what changed. */
  cache: CachePolicy;
  /** The store the configuration (or a test) names, without the circuit and the counting. */
  baseStore: SiteStore;
  store: SiteStore;
  cdn: CdnPurger;
}

export function composeStores(config: Config, options: Pick<ComposeOptions, 'store' | 'cdn'>, metrics: Metrics, logger: Logger): Stores {
  const cache = cachePolicy(config.cdn.kind !== 'none');
  const baseStore = options.store ?? createSiteStore(config, cache);
  // A hung store fails fast once a call timed out, instead of every call waiting out its deadline.
  const circuit = new StoreCircuit(baseStore, {
    onChange: (open, cause) =>
      open
        ? logger.warn(
            { err: cause },
            `the site store stopped answering: its calls fail at once (503 with Retry-After, publish jobs retry) for ${OPEN_FOR_MS / 1000} s at a time, until one succeeds`,
          )
        : logger.info('the site store answers again'),
  });
  const store = new CountedSiteStore(circuit, (operation) => metrics.countStoreError(operation));
  const cdn = new CountedPurger(options.cdn ?? createCdnPurger(config.cdn), (provider) => metrics.countPurgeError(provider));
  return { cache, baseStore, store, cdn };
}

/** What killed processes left: scratch copies of backups in the data dir, the folder store's temp files. */
export async function removeLeftovers(backups: Backups, baseStore: SiteStore): Promise<{ backups: string[]; temps: string[] }> {
  return {
    backups: await backups.removeLeftovers(),
    temps: baseStore instanceof FsSiteStore ? await baseStore.removeLeftoverTemps() : [],
  };
}

/** At server start: refuses a store other than the recorded one, records it on a new data dir. */
export function settleStore(data: Data, stores: Pick<Stores, 'store'>, clock: Clock, logger: Logger): Promise<void> {
  return settleStoreForServer(
    {
      settings: data.settings,
      clock,
      logger,
      blogSlugs: async () => (await data.repos.blogs.listAll()).slice(0, 5).map((blog) => blog.slug),
      storeHas: async (key) => (await stores.store.getBody(key)) !== null,
    },
    data.config,
  );
}
