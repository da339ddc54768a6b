/** The services part of the composition root: what the API and the CLI call, and the webhook events they record. */
import type { SqlClient } from '../db/sql/sqlClient.js';
import type { Config } from '../config/config.js';
import { serviceHostname } from '../config/config.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { JobRunner } from '../publish/jobs/jobRunner.js';
import type { SiteStore } from '../storage/siteStore.js';
import type { ContentRenderer } from '../content/contentRenderer.js';
import { ImagePipeline } from '../media/imagePipeline.js';
import { WebhookEvents } from '../webhooks/webhookEvents.js';
import { WebhookDispatcher } from '../webhooks/dispatcher.js';
import { systemLookup } from '../webhooks/addressGuard.js';
import { AccountsService } from '../services/accounts.js';
import { ApiKeysService } from '../services/apiKeys.js';
import { SessionsService } from '../services/sessions.js';
import { LoginLinksService } from '../services/loginLinks.js';
import { AccountPasswords } from '../services/accountPasswords.js';
import { publicApiBase } from '../config/apiBase.js';
import { BlogsService } from '../services/blogs.js';
import { DomainsService } from '../services/domains.js';
import { PostsService } from '../services/posts.js';
import { PostTransitions } from '../services/postTransitions.js';
import { PostRevisionsService } from '../services/postRevisions.js';
import { MediaService } from '../services/media.js';
import type { MediaRemoval } from '../services/mediaRemoval.js';
import type { StoreWatch } from '../services/storeWatch.js';
import type { SiteUrls } from '../domain/siteUrls.js';
import { createDomainResolver } from './adapters.js';
import type { ComposeOptions } from './folio.js';
import type { Repos } from './folio.js';

export interface Services {
  accounts: AccountsService;
  apiKeys: ApiKeysService;
  sessions: SessionsService;
  loginLinks: LoginLinksService;
  passwords: AccountPasswords;
  blogs: BlogsService;
  posts: PostsService;
  transitions: PostTransitions;
  /** Posts' histories: list, read, restore. */
  revisions: PostRevisionsService;
  media: MediaService;
  domains: DomainsService;
  /** Sends the webhook deliveries the services record. */
  dispatcher: WebhookDispatcher;
}

/** The accounts service alone: the CLI's `account` commands need no more. */
export function createAccounts(deps: { sql: SqlClient; repos: Repos; clock: Clock; runner?: JobRunner }): AccountsService {
  const { sql, repos, clock, runner } = deps;
  return new AccountsService({ sql, accounts: repos.accounts, keys: repos.keys, blogs: repos.blogs, jobs: repos.jobs, clock, ...(runner ? { runner } : {}) });
}

/** The one-time sign-in links alone: `folio account login-link` needs no more. */
export function createLoginLinks(deps: { config: Config; repos: Repos; clock: Clock }): LoginLinksService {
  return new LoginLinksService({ links: deps.repos.loginLinks, accounts: deps.repos.accounts, clock: deps.clock, apiBaseUrl: publicApiBase(deps.config) });
}

/** Accounts' passwords alone: `folio account set-password` needs no more. */
export function createPasswords(deps: { repos: Repos; clock: Clock }): AccountPasswords {
  return new AccountPasswords({
    accounts: deps.repos.accounts,
    sessions: new SessionsService({ sessions: deps.repos.sessions, clock: deps.clock }),
    clock: deps.clock,
  });
}

export function composeServices(
  deps: {
    config: Config;
    sql: SqlClient;
    repos: Repos;
    clock: Clock;
    logger: Logger;
    urls: SiteUrls;
    store: SiteStore;
    content: ContentRenderer;
    runner: JobRunner;
    mediaRemoval: MediaRemoval;
    storeWatch: Pick<StoreWatch, 'check'>;
  },
  options: Pick<ComposeOptions, 'resolver' | 'webhookLookup' | 'webhookLimits'>,
): Services {
  const { config, sql, repos, clock, logger, urls, runner } = deps;
  const dispatcher = new WebhookDispatcher({
    sql,
    repo: repos.webhooks,
    clock,
    logger,
    lookup: options.webhookLookup ?? systemLookup,
    allowPrivate: config.webhooksAllowPrivate,
    ...(options.webhookLimits ? { limits: options.webhookLimits } : {}),
  });
  const events = new WebhookEvents(repos.webhookQueue, urls, () => dispatcher.deliverDue());
  const postDeps = { sql, posts: repos.posts, revisions: repos.revisions, jobs: repos.jobs, media: repos.media, events, runner, clock, content: deps.content };
  const pipeline = new ImagePipeline({ maxPixels: config.mediaMaxPixels, timeLimitMs: config.mediaTimeLimitMs });
  const posts = new PostsService(postDeps);
  return {
    accounts: createAccounts(deps),
    apiKeys: new ApiKeysService(repos.keys, repos.blogs, clock),
    sessions: new SessionsService({ sessions: repos.sessions, clock }),
    loginLinks: createLoginLinks({ config, repos, clock }),
    passwords: createPasswords({ repos, clock }),
    blogs: new BlogsService({ sql, blogs: repos.blogs, jobs: repos.jobs, runner, clock, events }),
    posts,
    transitions: new PostTransitions(postDeps, logger),
    revisions: new PostRevisionsService({ revisions: repos.revisions, posts: repos.posts }, posts),
    media: new MediaService({
      sql,
      media: repos.media,
      store: deps.store,
      pipeline,
      jobs: repos.jobs,
      runner,
      removal: deps.mediaRemoval,
      storeWatch: deps.storeWatch,
      clock,
    }),
    domains: new DomainsService({
      sql,
      blogs: repos.blogs,
      domains: repos.domains,
      jobs: repos.jobs,
      runner,
      resolver: options.resolver ?? createDomainResolver(config.dnsServers),
      clock,
      logger,
      serviceHost: serviceHostname(config),
      events,
    }),
    dispatcher,
  };
}
