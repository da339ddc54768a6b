/**
 * Composition root: the only module that picks concrete classes. Everything else receives its
 * dependencies, so tests build the same graph with a temp data dir, a fake clock or a test store.
 */
import { join } from 'node:path';
import type { Config } from './config/config.js';
import { serviceHostname } from './config/config.js';
import { systemClock, type Clock } from './lib/clock.js';
import { openDatabase, SERVER_BUSY_TIMEOUT_MS, type Db } from './db/database.js';
import { startCheckpointer } from './db/checkpointer.js';
import { AccountsRepo } from './db/accountsRepo.js';
import { ApiKeysRepo } from './db/apiKeysRepo.js';
import { BlogsRepo } from './db/blogsRepo.js';
import { DbVersion } from './db/versionedCache.js';
import { DomainsRepo } from './db/domainsRepo.js';
import { JobsRepo } from './db/jobsRepo.js';
import { PostsRepo } from './db/postsRepo.js';
import { createApp } from './http/app.js';
import { accountKeyRoutes } from './http/routes/accountKeys.js';
import { apiKeyRoutes } from './http/routes/apiKeys.js';
import { blogRoutes } from './http/routes/blogs.js';
import { domainRoutes } from './http/routes/domains.js';
import { postRoutes } from './http/routes/posts.js';
import { mediaRoutes } from './http/routes/media.js';
import { accountExportRoutes } from './http/routes/accountExport.js';
import { AccountExporter } from './services/accountExport.js';
import { MediaRepo } from './db/mediaRepo.js';
import { IdempotencyRepo } from './db/idempotencyRepo.js';
import { IdempotencyService } from './services/idempotency.js';
import { ImagePipeline } from './media/imagePipeline.js';
import { MediaService } from './services/media.js';
import { MediaRemoval } from './services/mediaRemoval.js';
import { WebhooksRepo } from './db/webhooksRepo.js';
import { WebhookEvents } from './webhooks/webhookEvents.js';
import { WebhookDispatcher } from './webhooks/dispatcher.js';
import { systemLookup } from './webhooks/addressGuard.js';
import { WebhooksService } from './services/webhooks.js';
import { webhookRoutes } from './http/routes/webhooks.js';
import { searchRoutes } from './http/routes/search.js';
import type { Logger } from './lib/logger.js';
import { createPublishing } from './publish/publishing.js';
import { cachePolicy } from './domain/cacheHeaders.js';
import { createCdnPurger } from './cdn/createCdnPurger.js';
import { lazyTheme } from './publish/render/renderTheme.js';
import { ObjectHashesRepo } from './db/objectHashesRepo.js';
import { SiteRepo } from './db/siteRepo.js';
import { ListingSnapshotsRepo } from './db/listingSnapshotsRepo.js';
import { siteServer } from './http/siteServer.js';
import { templatesDir } from './lib/paths.js';
import type { SiteStore } from './storage/siteStore.js';
import { SearchIndexCache } from './search/searchIndexCache.js';
import { SearchIndexWriter } from './search/searchIndexWriter.js';
import { StaticIndexWriter } from './search/static/staticIndexWriter.js';
import { pooledSearchWork } from './search/pooledSearchWork.js';
import { FsSiteStore } from './storage/fsSiteStore.js';
import { OPEN_FOR_MS, StoreCircuit } from './storage/storeCircuit.js';
import { AccountsService } from './services/accounts.js';
import { ApiKeysService } from './services/apiKeys.js';
import { BlogsService } from './services/blogs.js';
import { DomainsService } from './services/domains.js';
import { PostsService } from './services/posts.js';
import { PostTransitions } from './services/postTransitions.js';
import { PooledContentRenderer } from './content/contentRenderer.js';
import { HeavyWork } from './heavyWork/heavyWork.js';
import { RateLimiter } from './services/rateLimiter.js';
import { SiteUrls } from './domain/siteUrls.js';
import { blogForHost } from './services/siteHosts.js';
import { AddressRateLimiter } from './services/addressRateLimiter.js';
import { tlsRoutes, TLS_ASK_LIMIT } from './http/routes/tls.js';
import { WarmUp } from './warmup/warmUp.js';
import { SEARCH_TEXT_VERSION } from './search/searchTypes.js';
import { renderFingerprint, reRenderAfterUpgrade } from './publish/reRenderAfterUpgrade.js';
import { SettingsRepo } from './db/settingsRepo.js';
import { resolvePublicUrlSettings } from './services/publicUrlSettings.js';
import { Metrics } from './metrics/metrics.js';
import { CountedSiteStore } from './metrics/countedStore.js';
import { timedSearcher } from './metrics/timedSearcher.js';
import { CountedPurger } from './metrics/countedPurger.js';
import { Backups } from './backup/backups.js';
import { checkStoreForCommand, settleStoreForServer } from './services/storeSettings.js';
import { StoreWatch } from './services/storeWatch.js';

import type { ComposeOptions, Folio } from './folio.js';
import { createDomainResolver, createSiteStore, databaseFile, storeLabel } from './adapters.js';

// compose.js is where callers have always found these; they live in folio.ts and adapters.ts.
export type { ComposeOptions, Folio } from './folio.js';
export { createDomainResolver, createSiteStore, databaseFile, storeLabel } from './adapters.js';

export function compose(options: ComposeOptions): Folio {
  const { logger } = options;
  const clock = options.clock ?? systemClock;
  const db = openDatabase(databaseFile(options.config), {
    busyTimeoutMs: options.busyTimeoutMs ?? SERVER_BUSY_TIMEOUT_MS,
    onMigrated: (names) => logger.info({ migrations: names }, `applied ${names.length} database migration${names.length === 1 ? '' : 's'}: ${names.join(', ')}`),
  });
  // One version for every cache, so a request asks SQLite once whether anything changed.
  const dbVersion = new DbVersion(db);
  const repos = {
    accounts: new AccountsRepo(db),
    keys: new ApiKeysRepo(db, dbVersion),
    blogs: new BlogsRepo(db, dbVersion),
    posts: new PostsRepo(db),
    domains: new DomainsRepo(db),
    jobs: new JobsRepo(db),
    media: new MediaRepo(db),
    webhooks: new WebhooksRepo(db),
  };
  // Settled before anything uses it: every URL this process builds comes from this config.
  let config: Config;
  try {
    const settle = { db, settings: new SettingsRepo(db), blogs: repos.blogs, jobs: repos.jobs, clock, logger };
    config = options.publicUrls ? resolvePublicUrlSettings(settle, options.config, options.publicUrls) : options.config;
    // A command never writes into another store than the server's (the server checks at start: settleStore).
    if (options.publicUrls === 'cli' && !options.store) checkStoreForCommand(settle.settings, config);
  } catch (err) {
    db.close();
    throw err;
  }
  const checkpointer = startCheckpointer(db, databaseFile(config));
  const urls = new SiteUrls(config);
  // Worker threads for work that grows with a post's size; shared fairly by accounts.
  const heavy = new HeavyWork();
  // With a purger the edge may keep pages long: every publish tells it what changed.
  const cache = cachePolicy(config.cdn.kind !== 'none');
  const metrics = new Metrics();
  const baseStore = options.store ?? createSiteStore(config, cache);
  // A hung store fails fast once a call timed out, instead of every call waiting out its deadline.
  const circuit = new StoreCircuit(baseStore, {
    onChange: (open, cause) =>
      open
        ? logger.warn({ err: cause }, `the site store stopped answering: its calls fail at once (503 with Retry-After, publish jobs retry) for ${OPEN_FOR_MS / 1000} s at a time, until one succeeds`)
        : logger.info('the site store answers again'),
  });
  const store = new CountedSiteStore(circuit, (operation) => metrics.countStoreError(operation));
  // One cache per process: the writer installs what it wrote, so /search reads its own writes.
  const searchWork = pooledSearchWork(heavy);
  const searchCache = new SearchIndexCache(store, { maxBytes: config.searchCacheBytes, decode: searchWork.decode });
  const searchWriter = new SearchIndexWriter(store, {
    cache: searchCache,
    onBackgroundError: (err, blog) => logger.warn({ err, blog }, 'search index merge failed; the index stays correct, only unmerged'),
    buildSegment: searchWork.buildSegment,
    mergeSegments: searchWork.mergeSegments,
  });
  const search = options.search ?? { searcher: searchCache, updater: searchWriter };
  const content = options.content ?? new PooledContentRenderer(heavy);
  const cdn = new CountedPurger(options.cdn ?? createCdnPurger(config.cdn), (provider) => metrics.countPurgeError(provider));
  const mediaRemoval = new MediaRemoval({ media: repos.media, blogs: repos.blogs, store, cdn, urls });
  // Never into a store the data dir no longer publishes to (moved under a running server).
  const storeWatch = new StoreWatch({ settings: new SettingsRepo(db), config, logger });
  const publisher = createPublishing({
    blogs: repos.blogs,
    jobs: repos.jobs,
    accounts: repos.accounts,
    site: new SiteRepo(db),
    hashes: new ObjectHashesRepo(db),
    store,
    urls,
    theme: lazyTheme(templatesDir),
    search: search.updater,
    content,
    logger,
    clock,
    metrics,
    cache,
    cdn,
    staticSearch: new StaticIndexWriter(store, { cacheControl: cache.page, buildSegment: searchWork.buildSegment }),
    listingSnapshots: new ListingSnapshotsRepo(db),
    media: repos.media,
    removeMedia: (job) => mediaRemoval.handle(job),
    beforeJob: () => storeWatch.assertOwnStore(),
    ...(options.jobHandler ? { jobHandler: options.jobHandler } : {}),
  });
  const { runner, handle: handleJob } = publisher;
  const webhooksRepo = repos.webhooks;
  const webhookLookup = options.webhookLookup ?? systemLookup;
  const dispatcher = new WebhookDispatcher({
    db,
    repo: webhooksRepo,
    clock,
    logger,
    lookup: webhookLookup,
    allowPrivate: config.webhooksAllowPrivate,
    ...(options.webhookLimits ? { limits: options.webhookLimits } : {}),
  });
  const events = new WebhookEvents(webhooksRepo, urls, () => dispatcher.deliverDue());
  const postDeps = { db, posts: repos.posts, jobs: repos.jobs, media: repos.media, events, runner, clock, content };
  const accounts = new AccountsService(db, repos.accounts, repos.keys, repos.blogs, repos.jobs, clock);
  const apiKeys = new ApiKeysService(repos.keys, repos.blogs, clock);
  const blogs = new BlogsService(db, repos.blogs, repos.jobs, runner, clock, events);
  const posts = new PostsService(postDeps);
  const transitions = new PostTransitions(postDeps, logger);
  const media = new MediaService({ db, media: repos.media, store, pipeline: new ImagePipeline({ maxPixels: config.mediaMaxPixels, timeLimitMs: config.mediaTimeLimitMs }), jobs: repos.jobs, runner, removal: mediaRemoval, clock });
  const domains = new DomainsService(
    db,
    repos.blogs,
    repos.domains,
    repos.jobs,
    runner,
    options.resolver ?? createDomainResolver(config.dnsServers),
    clock,
    logger,
    serviceHostname(config),
    events,
  );

  metrics.watch({ pendingJobs: () => repos.jobs.countByStatus('pending'), searchCache: () => searchCache.stats(), heavy: () => heavy.stats() });
  const hosts = blogForHost(repos.blogs, serviceHostname(config));
  const app = createApp({
    logger,
    db,
    keys: apiKeys,
    blogs: repos.blogs,
    rateLimiter: config.rateLimits ? new RateLimiter(clock) : null,
    // Not a plan limit (no account to count by): on even with FOLIO_RATE_LIMITS=off.
    addressLimiter: new AddressRateLimiter(clock, TLS_ASK_LIMIT.requests, TLS_ASK_LIMIT.windowMs),
    idempotency: new IdempotencyService(db, new IdempotencyRepo(db), clock),
    routes: [
      ...postRoutes({ posts, transitions, urls, media }),
      ...blogRoutes({ blogs, jobs: repos.jobs, urls }),
      ...apiKeyRoutes({ keys: apiKeys }),
      ...accountKeyRoutes({ keys: apiKeys }),
      ...domainRoutes({ domains }),
      ...mediaRoutes({ media, urls }),
      ...webhookRoutes({ webhooks: new WebhooksService({ db, blogs: repos.blogs, webhooks: webhooksRepo, clock, lookup: webhookLookup, allowPrivate: config.webhooksAllowPrivate }) }),
      ...accountExportRoutes({ exporter: new AccountExporter({ blogs: repos.blogs, posts: repos.posts, media: repos.media, urls, clock }) }),
      ...searchRoutes({ searcher: timedSearcher(search.searcher, (seconds) => metrics.observeSearch(seconds)), urls }),
      ...tlsRoutes({ blogForHost: hosts }),
    ],
    ...(config.serveSites ? { siteServer: siteServer({ store, blogForHost: hosts }) } : {}),
    apiBaseUrl: config.publicApiUrl ?? `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}/v1`,
    corsOrigins: config.corsOrigins,
    metrics,
    metricsToken: config.metricsToken,
    mcpServer: () => import('./mcp/mcpServer.js'),
  });

  // Images in an S3 bucket stay there: every backup copying them into the same bucket would
  // only multiply it (README "Backups and restore"; main.ts says so at start).
  const backups = new Backups({ dbFile: databaseFile(config), store, clock, logger, keep: config.backupKeep, media: { copy: config.storage !== 's3', store: storeLabel(config) } });

  const warmUp = new WarmUp({ settings: new SettingsRepo(db), cache: searchCache, listings: publisher, clock, logger });

  return {
    config,
    db,
    clock,
    logger,
    repos,
    accounts,
    apiKeys,
    blogs,
    posts,
    media,
    webhooks: dispatcher,
    transitions,
    domains,
    runner,
    handleJob,
    urls,
    store,
    publisher,
    content,
    heavy,
    metrics,
    app,
    backups,
    reRenderAfterUpgrade: () =>
      reRenderAfterUpgrade(
        { db, settings: new SettingsRepo(db), blogs: repos.blogs, jobs: repos.jobs, clock, logger },
        renderFingerprint(templatesDir, [cache.page]),
        SEARCH_TEXT_VERSION,
      ),
    removeLeftovers: async () => ({
      backups: await backups.removeLeftovers(),
      temps: baseStore instanceof FsSiteStore ? await baseStore.removeLeftoverTemps() : [],
    }),
    tick: async () => {
      storeWatch.check();
      await transitions.publishDue(repos.blogs);
      // Retries come due with time; sends run in the background, never holding the tick.
      dispatcher.deliverDue();
      await runner.runDue();
    },
    warmUp,
    settleStore: () =>
      settleStoreForServer(
        {
          settings: new SettingsRepo(db),
          clock,
          logger,
          blogSlugs: () => repos.blogs.listAll().slice(0, 5).map((blog) => blog.slug),
          storeHas: async (key) => (await store.getBody(key)) !== null,
        },
        config,
      ),
    searchCacheStats: () => searchCache.stats(),
    close: async () => {
      await dispatcher.close();
      await runner.idle();
      await publisher.idle();
      await backups.idle();
      await searchWriter.idle();
      await warmUp.remember();
      await heavy.close();
      await checkpointer.stop();
      db.close();
    },
  };
}
