/**
 * The composition root without the HTTP app. src/compose/ is the only folder that picks
 * concrete classes; everything else receives its dependencies, so tests build the same graph
 * with a temp data dir, a fake clock or a test store, and a CLI command builds no Koa app.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { systemClock } from '../lib/clock.js';
import { PooledContentRenderer } from '../content/contentRenderer.js';
import { HeavyWork } from '../heavyWork/heavyWork.js';
import { PooledCardDrawer } from '../publish/cards/cardDrawer.js';
import { SiteUrls } from '../domain/siteUrls.js';
import { WarmUp } from '../warmup/warmUp.js';
import { Metrics } from '../metrics/metrics.js';
import { Backups } from '../backup/backups.js';
import { databaseFile, storeLabel } from './adapters.js';
import { close, idle, tick } from './background.js';
import type { ComposeOptions, FolioCore } from './folio.js';
import { composePublishing, recordRenderedByCommand, reRenderIfUpgraded } from './publishing.js';
import { composeSearch } from './search.js';
import { composeServices } from './services.js';
import { composeStores, openData, removeLeftovers, settleStore } from './storage.js';
import { closeSiteStore } from './adapters.js';
import { noSqliteConnection } from './database.js';
import { composeAnalytics } from './analytics.js';
import { ExpiredSignIns } from '../services/expiredSignIns.js';
import type { BlogSearcher } from '../search/ports.js';
import { DatabaseLeases } from '../publish/jobs/databaseLeases.js';
import { soleNode } from '../publish/jobs/blogLeases.js';

/** The core and what only the HTTP part needs besides it. */
export interface Core {
  folio: FolioCore;
  /** What /search asks (the search cache unless a test replaced it). */
  searcher: BlogSearcher;
}

export async function buildCore(options: ComposeOptions): Promise<Core> {
  const { logger } = options;
  const clock = options.clock ?? systemClock;
  const data = await openData(options, clock);
  const { repos, config } = data;
  const checkpointer = data.startCheckpointer();
  const urls = new SiteUrls(config);
  // Worker threads for work that grows with a post's size; shared fairly by accounts.
  const heavy = new HeavyWork();
  const metrics = new Metrics();
  const stores = composeStores(config, options, metrics, logger);
  const { store, cache } = stores;
  // Several nodes on PostgreSQL take turns at each blog; one process (SQLite) holds them all.
  const leases = data.sql.dialect === 'postgres' ? new DatabaseLeases({ sql: data.sql, holder: nodeName(), logger }) : undefined;
  const search = composeSearch({ config, store, heavy, logger, leases }, options.search);
  const content = options.content ?? new PooledContentRenderer(heavy);
  const publishing = composePublishing({
    ...data,
    ...stores,
    urls,
    content,
    cards: new PooledCardDrawer(heavy),
    search: search.updater,
    buildSegment: search.work.buildSegment,
    rewriteChunk: search.work.rewriteChunk,
    rewritesDone: search.work.rewritesDone,
    clock,
    logger,
    metrics,
    jobHandler: options.jobHandler,
    jobBatchHandler: options.jobBatchHandler,
    jobBesideHandler: options.jobBesideHandler,
    leases,
  });
  const { publisher } = publishing;
  const { runner } = publisher;
  const services = composeServices(
    { config, sql: data.sql, repos, clock, logger, urls, store, content, runner, mediaRemoval: publishing.mediaRemoval, storeWatch: publishing.storeWatch },
    options,
  );
  const { dispatcher } = services;
  metrics.watch({ pendingJobs: () => repos.jobs.countByStatus('pending'), searchCache: () => search.cache.stats(), heavy: () => heavy.stats() });

  // Images in an S3 bucket stay there: every backup copying them into the same bucket would
  // only multiply it (README "Backups and restore"; main.ts says so at start).
  const backups = new Backups({
    database: config.databaseUrl ? { url: config.databaseUrl } : { file: databaseFile(config) },
    sql: data.sql,
    dataDir: config.dataDir,
    store,
    clock,
    logger,
    keep: config.backupKeep,
    media: { copy: config.storage !== 's3', store: storeLabel(config) },
  });
  const analytics = composeAnalytics({ config, sql: data.sql, posts: repos.posts, clock, logger, metrics });
  const warmUp = new WarmUp({ settings: data.settings, cache: search.cache, listings: publisher, clock, logger });
  const background = { publisher, backups, searchWriter: search.writer, dispatcher };
  const expiredSignIns = new ExpiredSignIns({ sessions: services.sessions, loginLinks: services.loginLinks, clock });

  const folio: FolioCore = {
    config,
    db: data.sqlite ?? noSqliteConnection(),
    sql: data.sql,
    clock,
    logger,
    repos,
    accounts: services.accounts,
    apiKeys: services.apiKeys,
    sessions: services.sessions,
    loginLinks: services.loginLinks,
    passwords: services.passwords,
    blogs: services.blogs,
    posts: services.posts,
    media: services.media,
    webhooks: dispatcher,
    transitions: services.transitions,
    revisions: services.revisions,
    domains: services.domains,
    runner,
    handleJob: publisher.handle,
    handleJobs: publisher.handleBatch,
    handleJobsBeside: publisher.handleBeside,
    urls,
    store,
    publisher,
    content,
    heavy,
    metrics,
    backups,
    warmUp,
    analytics,
    reRenderAfterUpgrade: () => reRenderIfUpgraded({ ...data, clock, logger }, cache),
    recordRenderedByCommand: (blogId, what) => recordRenderedByCommand({ ...data, clock }, cache, blogId, what),
    removeLeftovers: () => removeLeftovers(backups, stores.baseStore),
    tick: () => tick({ storeWatch: publishing.storeWatch, transitions: services.transitions, blogs: repos.blogs, dispatcher, runner, expiredSignIns }),
    idle: () => idle(background),
    restDatabase: async () => {
      await data.sql.rest();
      await checkpointer.rest();
    },
    settleStore: () => settleStore(data, stores, clock, logger),
    searchCacheStats: () => search.cache.stats(),
    close: () =>
      close({
        ...background,
        warmUp,
        heavy,
        media: services.media,
        siteStore: { close: () => closeSiteStore(stores.baseStore) },
        checkpointer,
        database: data,
        analytics,
        leases: leases ?? soleNode,
      }),
  };
  return { folio, searcher: search.searcher };
}

/** This process's name in `blog_leases`: the machine, the pid, and a random part (pids repeat across restarts). */
function nodeName(): string {
  return `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`;
}

/** Everything but the HTTP app: what a CLI command uses. */
export async function composeCore(options: ComposeOptions): Promise<FolioCore> {
  return (await buildCore(options)).folio;
}
