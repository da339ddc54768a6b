/** The concrete adapters the configuration names: the site store, the DNS resolver, the database file. */
import { Resolver } from 'node:dns/promises';
import { join } from 'node:path';
import type { Config } from '../config/config.js';
import { cachePolicy, type CachePolicy } from '../domain/cacheHeaders.js';
import type { DomainResolver } from '../services/domains.js';
import { FsSiteStore } from '../storage/fsSiteStore.js';
import { createS3Client, S3SiteStore } from '../storage/s3SiteStore.js';
import type { SiteStore } from '../storage/siteStore.js';

/** The store FOLIO_STORAGE names: a folder under the data dir, or an S3-compatible bucket. */
export function createSiteStore(config: Config, cache: CachePolicy = cachePolicy(config.cdn.kind !== 'none')): SiteStore {
  if (config.storage === 's3') {
    const client = createS3Client({
      region: config.s3.region,
      forcePathStyle: config.s3.forcePathStyle,
      ...(config.s3.endpoint ? { endpoint: config.s3.endpoint } : {}),
    });
    return new S3SiteStore({ client, bucket: config.s3.bucket });
  }
  return new FsSiteStore({ root: join(config.dataDir, 'public'), plainCacheControl: cache.page });
}

/** Where the configured store keeps things, for operators' messages: `folder /data/public`, `s3://bucket`. */
export function storeLabel(config: Pick<Config, 'storage' | 'dataDir' | 's3'>): string {
  return config.storage === 's3' ? `s3://${config.s3.bucket}` : `folder ${join(config.dataDir, 'public')}`;
}

/** Node's DNS resolver, on the configured servers (tests point it at a loopback server). */
export function createDomainResolver(servers: readonly string[]): DomainResolver {
  const resolver = new Resolver({ timeout: 3000, tries: 2 });
  if (servers.length > 0) resolver.setServers([...servers]);
  return resolver;
}

export function databaseFile(config: Pick<Config, 'dataDir'>): string {
  return join(config.dataDir, 'folio.db');
}

/** With nothing left to write: the folder store leaves the register of writers (storage/fsWriters.ts); other stores keep nothing. */
export async function closeSiteStore(baseStore: SiteStore): Promise<void> {
  // A mark that stays only makes the next start walk the tree: never a reason to fail a close.
  if (baseStore instanceof FsSiteStore) await baseStore.close().catch(() => undefined);
}
