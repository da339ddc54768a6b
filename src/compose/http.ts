/** The HTTP part of the composition root: the Koa app over the core's services (never listens). */
import { serviceHostname } from '../config/config.js';
import { publicApiBase } from '../config/apiBase.js';
import { join } from 'node:path';
import { packageRoot } from '../lib/paths.js';
import { DashboardAssets } from '../http/dashboard/assets.js';
import { SIGN_IN_LIMITS } from '../services/passwords.js';
import { createApp } from '../http/app.js';
import { accountRoutes } from '../http/routes/account.js';
import { accountKeyRoutes } from '../http/routes/accountKeys.js';
import { accountSessionRoutes } from '../http/routes/accountSessions.js';
import { apiKeyRoutes } from '../http/routes/apiKeys.js';
import { blogRoutes } from '../http/routes/blogs.js';
import { domainRoutes } from '../http/routes/domains.js';
import { postRoutes } from '../http/routes/posts.js';
import { postRevisionRoutes } from '../http/routes/postRevisions.js';
import { mediaRoutes } from '../http/routes/media.js';
import { accountExportRoutes } from '../http/routes/accountExport.js';
import { webhookRoutes } from '../http/routes/webhooks.js';
import { searchRoutes } from '../http/routes/search.js';
import { analyticsRoutes } from '../http/routes/analytics.js';
import { tlsRoutes, TLS_ASK_LIMIT } from '../http/routes/tls.js';
import { discoverRoutes, DISCOVER_LIMIT } from '../http/routes/discover.js';
import { previewRoutes } from '../http/routes/previews.js';
import { PREVIEW_PAGE_LIMIT } from '../http/previewPages.js';
import { composePreviews } from './previews.js';
import { siteServer } from '../http/siteServer.js';
import { withViewBeacon } from '../http/viewBeacon.js';
import { rememberedHosts } from '../http/beaconHosts.js';
import { IdempotencyRepo } from '../db/idempotencyRepo.js';
import { IdempotencyService } from '../services/idempotency.js';
import { AccountExporter } from '../services/accountExport.js';
import { WebhooksService } from '../services/webhooks.js';
import { ACCOUNT_WINDOW_MS, RateLimiter } from '../services/rateLimiter.js';
import { RateWindowSync } from '../services/rateWindowSync.js';
import { RateWindowsRepo } from '../db/rateWindowsRepo.js';
import { AddressRateLimiter } from '../services/addressRateLimiter.js';
import { blogForHost } from '../services/siteHosts.js';
import { systemLookup } from '../webhooks/addressGuard.js';
import { timedSearcher } from '../metrics/timedSearcher.js';
import type { ComposeOptions, Folio, FolioCore } from './folio.js';
import type { BlogSearcher } from '../search/ports.js';

export function composeHttp(
  core: FolioCore,
  searcher: BlogSearcher,
  options: Pick<ComposeOptions, 'webhookLookup'>,
): Pick<Folio, 'app' | 'listener'> & Partial<Pick<Folio, 'close'>> {
  const { config, clock, logger, repos, urls, metrics } = core;
  const { posts, transitions, media, blogs, domains, apiKeys } = core;
  const hosts = blogForHost(repos.blogs, serviceHostname(config));
  const webhooks = new WebhooksService({
    sql: core.sql,
    blogs: repos.blogs,
    webhooks: repos.webhooks,
    clock,
    lookup: options.webhookLookup ?? systemLookup,
    allowPrivate: config.webhooksAllowPrivate,
    wake: () => core.webhooks.deliverDue(),
  });
  const apiBaseUrl = publicApiBase(config);
  // Preview pages live beside /v1 on the API's public base (a prefix behind a proxy included).
  const previewBase = apiBaseUrl.replace(/\/v1\/?$/, '');
  const previewPath = new URL(previewBase).pathname.replace(/\/+$/, '');
  const previews = composePreviews(core);
  const views = { pageViews: core.analytics.pageViews, trustProxyHops: config.trustProxyHops };
  // Nodes on one PostgreSQL count account budgets and sign-in emails together; client addresses stay per node (docs/operations.md).
  const shared = core.sql.dialect === 'postgres' ? new RateWindowSync({ repo: new RateWindowsRepo(core.sql), clock, logger }) : null;
  const app = createApp({
    logger,
    sql: core.sql,
    keys: apiKeys,
    blogs: repos.blogs,
    rateLimiter: config.rateLimits ? new RateLimiter(clock, shared?.share('account', ACCOUNT_WINDOW_MS)) : null,
    // Not a plan limit (no account to count by): on even with FOLIO_RATE_LIMITS=off.
    addressLimiter: new AddressRateLimiter(clock, TLS_ASK_LIMIT.requests, TLS_ASK_LIMIT.windowMs),
    trustProxyHops: config.trustProxyHops,
    idempotency: new IdempotencyService({ sql: core.sql, repo: new IdempotencyRepo(core.sql), clock }),
    routes: [
      ...postRoutes({ posts, transitions, urls, media }),
      ...previewRoutes({ live: previews.live, links: previews.links, urls, pageUrl: (token) => `${previewBase}/preview/${token}` }),
      ...postRevisionRoutes({ revisions: core.revisions, urls }),
      ...blogRoutes({ blogs, jobs: repos.jobs, urls }),
      ...apiKeyRoutes({ keys: apiKeys }),
      ...accountRoutes({ accounts: core.accounts }),
      ...accountKeyRoutes({ keys: apiKeys }),
      ...accountSessionRoutes({ sessions: core.sessions, passwords: core.passwords }),
      ...domainRoutes({ domains }),
      ...mediaRoutes({ media, urls }),
      ...webhookRoutes({ webhooks }),
      ...accountExportRoutes({ exporter: new AccountExporter({ blogs: repos.blogs, posts: repos.posts, media: repos.media, urls, clock }) }),
      ...searchRoutes({ searcher: timedSearcher(searcher, (seconds) => metrics.observeSearch(seconds)), urls }),
      ...analyticsRoutes({ analytics: core.analytics.service }),
      ...tlsRoutes({ blogForHost: hosts }),
      ...discoverRoutes({
        discovery: repos.discovery,
        urls,
        limiter: new AddressRateLimiter(clock, DISCOVER_LIMIT.requests, DISCOVER_LIMIT.windowMs),
      }),
    ],
    ...(config.serveSites
      ? {
          siteServer: siteServer({
            store: core.store,
            blogForHost: hosts,
            views,
          }),
        }
      : {}),
    apiBaseUrl,
    previewPages: {
      source: previews.links,
      limiter: new AddressRateLimiter(clock, PREVIEW_PAGE_LIMIT.requests, PREVIEW_PAGE_LIMIT.windowMs),
      trustProxyHops: config.trustProxyHops,
      basePath: previewPath,
    },
    corsOrigins: config.corsOrigins,
    metrics,
    metricsToken: config.metricsToken,
    // Loaded on the first MCP request only; http/ never imports mcp/.
    mcpServer: () => import('../mcp/mcpServer.js'),
    dashboard: {
      sessions: core.sessions,
      loginLinks: core.loginLinks,
      passwords: core.passwords,
      assets: new DashboardAssets(join(packageRoot, 'dist', 'dashboard')),
      // The editor's preview frame takes the theme's assets where preview links do.
      previewFrame: { source: previews.frame, assetsBase: `${previewPath}/preview/assets` },
      // Not a plan limit: on even with FOLIO_RATE_LIMITS=off (guessing passwords is never fine).
      limits: {
        perAddress: new AddressRateLimiter(clock, SIGN_IN_LIMITS.perAddress, SIGN_IN_LIMITS.windowMs),
        perAccount: new AddressRateLimiter(clock, SIGN_IN_LIMITS.perAccount, SIGN_IN_LIMITS.windowMs, shared?.share('sign-in-email', SIGN_IN_LIMITS.windowMs)),
      },
    },
  });
  // Sites' view beacons are answered before the app (http/viewBeacon.ts says why).
  const listener = config.serveSites ? withViewBeacon(app.callback(), { views, blogForHost: rememberedHosts(hosts, clock) }) : app.callback();
  if (!shared) return { app, listener };
  shared.start();
  // The syncer stops before the database closes under it.
  return { app, listener, close: () => shared.stop().then(() => core.close()) };
}
