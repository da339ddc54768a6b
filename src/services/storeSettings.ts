/**
 * One site store per data dir. The database says which pages, images and search indexes exist;
 * the store holds them. A process that publishes to another store than the one those were
 * written to serves 404 for every blog (a restart with FOLIO_STORAGE=s3 on a folder-store data
 * dir) or writes pages no reader sees (`folio site rebuild --all` without the S3 variables). So
 * the server records the store it publishes to, like the public URL settings
 * (publicUrlSettings.ts); a server or command whose environment names another store refuses,
 * and `folio site migrate-store` is the one way to move (docs/configuration.md, "Moving to another store").
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Config, StorageKind } from '../config/config.js';
import type { SettingsRepo } from '../db/settingsRepo.js';
import type { Logger } from '../lib/logger.js';
import { isoNow, type Clock } from '../lib/clock.js';

const KEY = 'site_store';

/** What identifies a store, plus what a process needs to reach it again (region, path style). */
export interface StoreRecord {
  kind: StorageKind;
  /** s3 only. */
  bucket?: string;
  /** s3 only: null for AWS itself. */
  endpoint?: string | null;
  region?: string;
  forcePathStyle?: boolean;
}

/** The environment names another store than the one this data dir publishes to. */
export class StoreMismatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreMismatchError';
  }
}

export function storeRecordOf(config: Config): StoreRecord {
  if (config.storage === 'fs') return { kind: 'fs' };
  return {
    kind: 's3',
    bucket: config.s3.bucket,
    endpoint: normalEndpoint(config.s3.endpoint),
    region: config.s3.region,
    forcePathStyle: config.s3.forcePathStyle,
  };
}

function normalEndpoint(endpoint: string | undefined | null): string | null {
  if (!endpoint) return null;
  try {
    return new URL(endpoint).origin + new URL(endpoint).pathname.replace(/\/+$/, '');
  } catch {
    return endpoint.replace(/\/+$/, '');
  }
}

/**
 * The same store: the folder store is always `<data dir>/public`, so a data dir copied elsewhere
 * keeps its store; a bucket is the same bucket on the same endpoint (region and addressing style
 * only say how to reach it).
 */
export function sameStore(a: StoreRecord, b: StoreRecord): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'fs') return true;
  return a.bucket === b.bucket && normalEndpoint(a.endpoint) === normalEndpoint(b.endpoint);
}

/** For messages: `the folder store /srv/folio/data/public`, `S3 bucket "blogs" at http://minio:9000`. */
export function describeStore(record: StoreRecord, dataDir: string): string {
  if (record.kind === 'fs') return `the folder store ${join(dataDir, 'public')}`;
  return `S3 bucket "${record.bucket}" ${record.endpoint ? `at ${record.endpoint}` : `on AWS (${record.region ?? 'us-east-1'})`}`;
}

/** A copy of the config that reaches the recorded store (for copying out of it). */
export function configForStore(config: Config, record: StoreRecord): Config {
  if (record.kind === 'fs') return Object.freeze({ ...config, storage: 'fs' });
  return Object.freeze({
    ...config,
    storage: 's3',
    s3: Object.freeze({
      bucket: record.bucket ?? '',
      endpoint: record.endpoint ?? undefined,
      region: record.region ?? 'us-east-1',
      forcePathStyle: record.forcePathStyle ?? record.endpoint !== null,
    }),
  });
}

export async function readStoreRecord(settings: SettingsRepo): Promise<StoreRecord | null> {
  const raw = await settings.get(KEY);
  if (raw === null) return null;
  try {
    const parsed = JSON.parse(raw) as StoreRecord;
    if (parsed.kind === 'fs' || (parsed.kind === 's3' && typeof parsed.bucket === 'string')) return parsed;
  } catch {
    // A hand-edited value: treated as unrecorded, and the server records its own again.
  }
  return null;
}

export async function writeStoreRecord(settings: SettingsRepo, record: StoreRecord, clock: Clock): Promise<void> {
  await settings.set(KEY, JSON.stringify(record), isoNow(clock));
}

const MIGRATE = '`folio site migrate-store`';

/**
 * A command (the CLI) about to read or write the store: refuses when its environment names
 * another store than the recorded one. Before any server recorded a store, the environment is used.
 */
export async function checkStoreForCommand(settings: SettingsRepo, config: Config): Promise<void> {
  const recorded = await readStoreRecord(settings);
  const configured = storeRecordOf(config);
  if (!recorded || sameStore(recorded, configured)) return;
  throw new StoreMismatchError(
    `this data dir publishes to ${describeStore(recorded, config.dataDir)} (recorded by the server), but this command's environment names ` +
      `${describeStore(configured, config.dataDir)} (FOLIO_STORAGE=${config.storage}); run it with the server's FOLIO_STORAGE and FOLIO_S3_* settings, ` +
      `or, to move this data dir to the new store, run ${MIGRATE} with them (README "Moving to another store")`,
  );
}

export interface StoreSettleDeps {
  settings: SettingsRepo;
  clock: Clock;
  logger: Logger;
  /** Slugs of (up to a few of) the blogs of this data dir; none on a fresh install. Asked only without a record. */
  blogSlugs(): Promise<string[]>;
  /** Whether the configured store holds the object (a blog's home page). */
  storeHas(key: string): Promise<boolean>;
}

/**
 * The server at start: the configured store must be the recorded one. Without a record (a new
 * data dir, or one last run by a release that did not record it) the configured store is
 * recorded when it holds the blogs' pages or there are no blogs yet; a folder store holding them
 * while the environment names a bucket is a move nobody made, and is refused like a mismatch.
 */
export async function settleStoreForServer(deps: StoreSettleDeps, config: Config): Promise<void> {
  const recorded = await readStoreRecord(deps.settings);
  const configured = storeRecordOf(config);
  const refuse = (from: StoreRecord, why: string): never => {
    throw new StoreMismatchError(
      `this data dir publishes to ${describeStore(from, config.dataDir)} (${why}), but FOLIO_STORAGE=${config.storage} names ` +
        `${describeStore(configured, config.dataDir)}: this server would serve and publish there, not where its blogs' pages are (404 for every page). ` +
        `To move, run ${MIGRATE} with the new settings (it copies every page, image and backup into the new store and records it), then start again; ` +
        `to stay, start with the settings of the recorded store (README "Moving to another store")`,
    );
  };
  if (recorded) {
    if (!sameStore(recorded, configured)) refuse(recorded, 'recorded in the database');
    // Same store: keep how to reach it current (a new region or addressing style).
    if (JSON.stringify(recorded) !== JSON.stringify(configured)) await writeStoreRecord(deps.settings, configured, deps.clock);
    return;
  }
  const record = async (): Promise<void> => {
    await writeStoreRecord(deps.settings, configured, deps.clock);
    deps.logger.info({ store: describeStore(configured, config.dataDir) }, 'recorded the site store for every process on this data dir');
  };
  const slugs = await deps.blogSlugs();
  if (slugs.length === 0) return record();
  let holds = false;
  try {
    for (const slug of slugs) {
      if (await deps.storeHas(`${slug}/index.html`)) {
        holds = true;
        break;
      }
    }
  } catch (err) {
    // Unreachable now: decided at a later start, when it answers.
    deps.logger.warn({ err }, 'could not check which store holds the blogs; the site store is recorded at a later start');
    return;
  }
  if (holds) return record();
  const folder = join(config.dataDir, 'public');
  if (configured.kind !== 'fs' && slugs.some((slug) => existsSync(join(folder, slug, 'index.html')))) {
    refuse({ kind: 'fs' }, 'its pages are there');
  }
  deps.logger.warn(
    { store: describeStore(configured, config.dataDir), blogs: slugs.length },
    `none of the blogs' pages are in ${describeStore(configured, config.dataDir)}: after a restore, run \`folio site rebuild --all\`; ` +
      "if this data dir published to another store, stop and start with that store's settings",
  );
}
