/**
 * Reads process.env once into a frozen, typed Config (the settings of docs/configuration.md).
 * A bad value throws ConfigError naming the variable; main.ts prints it as one line and exits.
 */
import { parseBackupInterval, type BackupSchedule } from '../backup/backupInterval.js';
import { resolve } from 'node:path';
import { PLANS, type Plan } from '../domain/plans.js';
import type { PublicScheme } from '../domain/siteUrls.js';
import { ConfigError, readBool, readEnum, readInt, readRequired, readUrl, type Env } from './env.js';
import { readDatabaseUrl } from './databaseUrl.js';

export { ConfigError };

export type StorageKind = 'fs' | 's3';

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  /**
   * FOLIO_DATABASE_URL: a PostgreSQL server (`postgres://…`) instead of SQLite's file in the data
   * dir; null (the default) for SQLite.
   */
  readonly databaseUrl: string | null;
  /** `<blog>.<serviceDomain>` is a blog's address; may carry a port (`localhost:3000`). */
  readonly serviceDomain: string;
  readonly publicScheme: PublicScheme;
  /**
   * Whether FOLIO_SERVICE_DOMAIN / FOLIO_PUBLIC_SCHEME were set in the environment; false means
   * the value above is a default (the PORT-derived domain included). The values the server
   * recorded win over defaults: see src/services/publicUrlSettings.ts.
   */
  readonly explicit: { readonly serviceDomain: boolean; readonly publicScheme: boolean };
  readonly storage: StorageKind;
  readonly s3: {
    readonly bucket: string;
    readonly endpoint: string | undefined;
    readonly region: string;
    readonly forcePathStyle: boolean;
  };
  readonly serveSites: boolean;
  readonly rateLimits: boolean;
  readonly logLevel: string;
  /** DNS servers for custom-domain checks (`host` or `host:port`); empty = the system's. */
  readonly dnsServers: readonly string[];
  /** Memory budget of the search index cache, in bytes. */
  readonly searchCacheBytes: number;
  /** Quiet time after which the server lets go of its caches and worker threads (FOLIO_REST_AFTER, seconds; 0: never; warmup/rest.ts). */
  readonly restAfterMs: number;
  /** The CDN Folio purges after every publish (FOLIO_CDN); `none` by default. */
  readonly cdn: CdnConfig;
  /** Bound on a graceful stop (SIGTERM/SIGINT): draining requests and running jobs, then exit. */
  readonly shutdownTimeoutMs: number;
  /** The API's public base URL (FOLIO_PUBLIC_API_URL) for the OpenAPI `servers`; null: the listen address. */
  readonly publicApiUrl: string | null;
  /** Webhooks may reach loopback, private and link-local addresses (FOLIO_WEBHOOKS_ALLOW_PRIVATE). */
  readonly webhooksAllowPrivate: boolean;
  /** Browser origins allowed to call the API (FOLIO_CORS_ORIGINS); empty: none, `['*']`: any. */
  readonly corsOrigins: readonly string[];
  /** Bearer token GET /metrics requires; null: the endpoint is open (it carries no tenant data). */
  readonly metricsToken: string | null;
  /**
   * Proxies in front of Folio whose X-Forwarded-For is believed (FOLIO_TRUST_PROXY): 0 = none,
   * the socket's address is the client's; n = the n-th address from the right of the header.
   */
  readonly trustProxyHops: number;
  /** Whether publishing draws social cards for posts and home pages (FOLIO_SOCIAL_CARDS, docs/publishing.md). */
  readonly socialCards: boolean;
  /** The most post jobs of one blog a publish run folds together (FOLIO_PUBLISH_BATCH, docs/publishing.md#coalesced-publishing); 1: each runs alone. */
  readonly publishBatch: number;
  /** Days of daily analytics kept (FOLIO_ANALYTICS_RETENTION_DAYS, docs/analytics.md). */
  readonly analyticsRetentionDays: number;
  /** When the server snapshots the database into the store (FOLIO_BACKUP_INTERVAL); null: never. */
  readonly backupSchedule: BackupSchedule | null;
  /** How many of those snapshots the store keeps (FOLIO_BACKUP_KEEP). */
  readonly backupKeep: number;
  /** The plan of accounts made without `--plan`, and of the first-start account (FOLIO_DEFAULT_PLAN). */
  readonly defaultPlan: Plan;
  /** Whether FOLIO_DEFAULT_PLAN was set (`folio account create` says where the plan came from). */
  readonly explicitDefaultPlan: boolean;
  /** Largest upload decoded, in pixels of all its frames together (FOLIO_MEDIA_MAX_MEGAPIXELS). */
  readonly mediaMaxPixels: number;
  /** Time budget of one upload's decoding and encoding (FOLIO_MEDIA_TIME_LIMIT, seconds). */
  readonly mediaTimeLimitMs: number;
}

export type CdnKind = 'none' | 'http-purge' | 'cloudfront' | 'cloudflare';

export type CdnConfig =
  | { readonly kind: 'none' }
  | { readonly kind: 'http-purge'; readonly purgeUrl: string; readonly wholeHost: 'ban' | 'paths' }
  | { readonly kind: 'cloudfront'; readonly distributionId: string; readonly endpoint: string | undefined }
  | { readonly kind: 'cloudflare'; readonly zoneId: string; readonly apiToken: string; readonly apiUrl: string };

const DOMAIN = /^(?=.{1,253}(:|$))([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*(:\d{1,5})?$/;

export function loadConfig(env: Env = process.env): Config {
  const port = readInt(env, 'PORT', 3000, 0, 65535);
  const host = (env.HOST ?? '').trim() || '127.0.0.1';
  const domainSet = (env.FOLIO_SERVICE_DOMAIN ?? '').trim();
  const serviceDomain = (domainSet || `localhost:${port}`).toLowerCase();
  if (!DOMAIN.test(serviceDomain)) {
    throw new ConfigError('FOLIO_SERVICE_DOMAIN', `not a host name (optionally with :port): "${serviceDomain}"`);
  }
  const publicScheme = readEnum(env, 'FOLIO_PUBLIC_SCHEME', defaultPublicScheme(serviceDomain), ['http', 'https'] as const);
  const storage = readEnum(env, 'FOLIO_STORAGE', 'fs', ['fs', 's3'] as const);
  const bucket = (env.FOLIO_S3_BUCKET ?? '').trim();
  if (storage === 's3' && !bucket) throw new ConfigError('FOLIO_S3_BUCKET', 'required when FOLIO_STORAGE=s3');
  const endpoint = (env.FOLIO_S3_ENDPOINT ?? '').trim() || undefined;
  if (endpoint !== undefined && !/^https?:\/\/[^\s/]+/.test(endpoint)) {
    throw new ConfigError('FOLIO_S3_ENDPOINT', `expected an http(s) URL, got "${endpoint}"`);
  }
  const rateLimitsRaw = (env.FOLIO_RATE_LIMITS ?? '').trim().toLowerCase();
  if (rateLimitsRaw && !['on', 'off', 'true', 'false'].includes(rateLimitsRaw)) {
    throw new ConfigError('FOLIO_RATE_LIMITS', `expected on or off, got "${env.FOLIO_RATE_LIMITS}"`);
  }
  const dnsServers = (env.FOLIO_DNS_SERVERS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const server of dnsServers) {
    if (!/^[0-9a-f.:[\]]+$/i.test(server)) throw new ConfigError('FOLIO_DNS_SERVERS', `not an IP address: "${server}"`);
  }
  const logLevel = readEnum(env, 'FOLIO_LOG_LEVEL', 'info', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const);
  const searchCacheMb = readInt(env, 'FOLIO_SEARCH_CACHE_MB', 256, 1, 65536);
  const cdn = readCdn(env);
  const shutdownSeconds = readInt(env, 'FOLIO_SHUTDOWN_TIMEOUT', 20, 1, 3600);
  const metricsToken = readMetricsToken(env);
  const publicApiUrl = readPublicApiUrl(env);
  const corsOrigins = readCorsOrigins(env);
  const backupSchedule = parseBackupInterval(env.FOLIO_BACKUP_INTERVAL);
  if (typeof backupSchedule === 'string') throw new ConfigError('FOLIO_BACKUP_INTERVAL', backupSchedule);
  const backupKeep = readInt(env, 'FOLIO_BACKUP_KEEP', 24, 1, 10_000);
  // A self-hosted install is one operator's: every capability by default. A hosted service that
  // sells plans sets `free`.
  const defaultPlan = readEnum(env, 'FOLIO_DEFAULT_PLAN', 'enterprise', PLANS);
  const mediaMegapixels = readInt(env, 'FOLIO_MEDIA_MAX_MEGAPIXELS', 24, 1, 268);
  const mediaTimeLimit = readInt(env, 'FOLIO_MEDIA_TIME_LIMIT', 20, 1, 600);

  return Object.freeze({
    port,
    host,
    dataDir: resolve((env.FOLIO_DATA_DIR ?? '').trim() || './data'),
    databaseUrl: readDatabaseUrl(env),
    serviceDomain,
    publicScheme,
    explicit: Object.freeze({ serviceDomain: domainSet !== '', publicScheme: (env.FOLIO_PUBLIC_SCHEME ?? '') !== '' }),
    storage,
    s3: Object.freeze({
      bucket,
      endpoint,
      region: (env.FOLIO_S3_REGION ?? '').trim() || 'us-east-1',
      forcePathStyle: readBool(env, 'FOLIO_S3_FORCE_PATH_STYLE', endpoint !== undefined),
    }),
    serveSites: readBool(env, 'FOLIO_SERVE_SITES', true),
    rateLimits: rateLimitsRaw !== 'off' && rateLimitsRaw !== 'false',
    logLevel,
    dnsServers: Object.freeze(dnsServers),
    searchCacheBytes: searchCacheMb * 1024 * 1024,
    restAfterMs: readInt(env, 'FOLIO_REST_AFTER', 300, 0, 86_400) * 1000,
    cdn,
    shutdownTimeoutMs: shutdownSeconds * 1000,
    metricsToken,
    trustProxyHops: readProxyHops(env),
    socialCards: readBool(env, 'FOLIO_SOCIAL_CARDS', true),
    publishBatch: readInt(env, 'FOLIO_PUBLISH_BATCH', 200, 1, 1000),
    analyticsRetentionDays: readInt(env, 'FOLIO_ANALYTICS_RETENTION_DAYS', 400, 1, 36_500),
    mediaMaxPixels: mediaMegapixels * 1_000_000,
    mediaTimeLimitMs: mediaTimeLimit * 1000,
    publicApiUrl,
    corsOrigins: Object.freeze(corsOrigins),
    webhooksAllowPrivate: readBool(env, 'FOLIO_WEBHOOKS_ALLOW_PRIVATE', false),
    backupSchedule,
    backupKeep,
    defaultPlan,
    explicitDefaultPlan: (env.FOLIO_DEFAULT_PLAN ?? '').trim() !== '',
  });
}

/** `off` (default) or `on` (one proxy, the shipped Varnish/nginx), or how many proxies stand in front. */
function readProxyHops(env: Env): number {
  const raw = (env.FOLIO_TRUST_PROXY ?? '').trim().toLowerCase();
  if (['', 'false', '0', 'no', 'off'].includes(raw)) return 0;
  if (['true', 'yes', 'on'].includes(raw)) return 1;
  return readInt(env, 'FOLIO_TRUST_PROXY', 0, 1, 10);
}

/** An http(s) URL without query or fragment; kept without a trailing slash. */
function readPublicApiUrl(env: Env): string | null {
  const raw = (env.FOLIO_PUBLIC_API_URL ?? '').trim();
  if (raw === '') return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('FOLIO_PUBLIC_API_URL', `not a URL: "${raw}" (for example https://api.example.com)`);
  }
  if (!['http:', 'https:'].includes(url.protocol) || url.search || url.hash || url.username) {
    throw new ConfigError('FOLIO_PUBLIC_API_URL', `use an http(s) URL without credentials, query or fragment, got "${raw}"`);
  }
  return url.href.replace(/\/+$/, '');
}

/** `*`, or a comma-separated list of origins (`https://editor.example.com`), each scheme://host[:port]. */
function readCorsOrigins(env: Env): string[] {
  const items = (env.FOLIO_CORS_ORIGINS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (items.length === 1 && items[0] === '*') return ['*'];
  return items.map((item) => {
    let url: URL | null = null;
    try {
      url = new URL(item);
    } catch {
      // reported below
    }
    if (!url || !['http:', 'https:'].includes(url.protocol) || url.origin !== item.replace(/\/$/, '')) {
      throw new ConfigError('FOLIO_CORS_ORIGINS', `"${item}" is not an origin (scheme://host[:port], no path); or use * alone`);
    }
    return url.origin;
  });
}

/** Visible ASCII (it travels in a header), long enough not to be guessed. */
function readMetricsToken(env: Env): string | null {
  const raw = (env.FOLIO_METRICS_TOKEN ?? '').trim();
  if (raw === '') return null;
  if (!/^[\x21-\x7e]+$/.test(raw)) throw new ConfigError('FOLIO_METRICS_TOKEN', 'use visible ASCII characters only, without spaces');
  if (raw.length < 16) throw new ConfigError('FOLIO_METRICS_TOKEN', `use at least 16 characters (for example \`openssl rand -hex 32\`), got ${raw.length}`);
  return raw;
}

/** `http` for a local service domain (`localhost`, `*.localhost`, any port), else `https`. */
export function defaultPublicScheme(serviceDomain: string): PublicScheme {
  const host = serviceDomain.replace(/:\d+$/, '');
  return host === 'localhost' || host.endsWith('.localhost') ? 'http' : 'https';
}

/** A copy of the config with other public URL settings (Config stays frozen). */
export function withPublicUrls(config: Config, urls: { serviceDomain: string; publicScheme: PublicScheme }): Config {
  return Object.freeze({ ...config, serviceDomain: urls.serviceDomain, publicScheme: urls.publicScheme });
}

/** FOLIO_DEBUG=1: the CLI prints the stack of an unexpected error. Apart from loadConfig, so a bad configuration does not hide it. */
export function debugRequested(env: Env = process.env): boolean {
  return ['1', 'true', 'yes', 'on'].includes((env.FOLIO_DEBUG ?? '').trim().toLowerCase());
}

/** The service domain without its port: DNS names (cname_target) never carry one. */
export function serviceHostname(config: Pick<Config, 'serviceDomain'>): string {
  return config.serviceDomain.replace(/:\d+$/, '');
}

/** FOLIO_CDN and the settings of the provider it names (docs/cdn.md). */
function readCdn(env: Env): CdnConfig {
  const kind = readEnum(env, 'FOLIO_CDN', 'none', ['none', 'http-purge', 'cloudfront', 'cloudflare'] as const);
  switch (kind) {
    case 'none':
      return { kind };
    case 'http-purge':
      return {
        kind,
        purgeUrl: readUrl(env, 'FOLIO_CDN_PURGE_URL', 'FOLIO_CDN=http-purge')!,
        wholeHost: readEnum(env, 'FOLIO_CDN_PURGE_WHOLE', 'ban', ['ban', 'paths'] as const),
      };
    case 'cloudfront':
      return {
        kind,
        distributionId: readRequired(
          env,
          'FOLIO_CLOUDFRONT_DISTRIBUTION_ID',
          'FOLIO_CDN=cloudfront',
          /^[A-Z0-9]{1,64}$/,
          'a CloudFront distribution id (upper-case letters and digits)',
        ),
        endpoint: readUrl(env, 'FOLIO_CLOUDFRONT_ENDPOINT', null),
      };
    case 'cloudflare': {
      // The token is a secret: taken from the environment like the AWS credentials, never logged.
      const token = (env.FOLIO_CLOUDFLARE_API_TOKEN ?? env.CLOUDFLARE_API_TOKEN ?? '').trim();
      if (!token) throw new ConfigError('FOLIO_CLOUDFLARE_API_TOKEN', 'required when FOLIO_CDN=cloudflare (or set CLOUDFLARE_API_TOKEN)');
      return {
        kind,
        zoneId: readRequired(env, 'FOLIO_CLOUDFLARE_ZONE_ID', 'FOLIO_CDN=cloudflare', /^[0-9a-f]{32}$/i, 'a Cloudflare zone id (32 hex characters)'),
        apiToken: token,
        apiUrl: readUrl(env, 'FOLIO_CLOUDFLARE_API_URL', null) ?? 'https://api.cloudflare.com/client/v4',
      };
    }
  }
}
