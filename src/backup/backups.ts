/**
 * Online backups of the database (docs/operations.md, "Backups and restore"): `folio backup <file>` and the
 * server's scheduled snapshots into the site store under `_backups/`. On SQLite the snapshot itself
 * runs on a worker thread (snapshot.ts); on PostgreSQL the database is copied into a new SQLite
 * file (db/copy/), so that a backup is the same kind of file on both. Here are the file and store
 * steps around them.
 */
import { mkdir, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { existsSync } from 'node:fs';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { SiteStore } from '../storage/siteStore.js';
import { addMediaToSnapshot, type MediaCopyResult, type MediaPlan } from './backupMedia.js';
import { BACKUP_CACHE_CONTROL, BACKUP_CONTENT_TYPE, BACKUP_PREFIX, backupKey, expiredBackups } from './backupKeys.js';
import { releaseScratch, removeBackupLeftovers, scratchPath } from './backupLeftovers.js';
import { takeSnapshot } from './snapshot.js';
import { backupSlot, claimBackupSlot, finishBackupSlot, renewBackupClaim, takeOverBackupSlot } from './backupTurn.js';
import { copyPostgresToSqlite } from '../db/copy/copyToPostgres.js';
import type { SqlClient } from '../db/sql/sqlClient.js';
import { SnapshotError, type SnapshotResult } from './snapshotCopy.js';

/** How long a snapshot waits for SQLite's lock; readers rarely wait at all in WAL mode. */
const SNAPSHOT_BUSY_MS = 5_000;
/**
 * How long a node's claim on a scheduled backup lasts unless renewed (every quarter of it while
 * the backup runs): a node that died is replaced about this long after its last renewal.
 */
export const BACKUP_LEASE_MS = 2 * 60_000;

/** Where a backup's images come from, and whether they are copied into it (backupMedia.ts). */
export interface BackupMediaSource {
  store: SiteStore;
  plan: MediaPlan;
}

export interface BackupResult extends SnapshotResult {
  media: MediaCopyResult;
}

/** The database a backup copies: SQLite's file, or the PostgreSQL database FOLIO_DATABASE_URL names. */
export type BackupDatabase = { file: string } | { url: string };

/**
 * The database as of one read transaction, with the images its rows name (or the record that
 * they were left in the store), checked, and gzipped to `gzipTo` when set.
 */
async function snapshotWithMedia(database: BackupDatabase, copy: string, gzipTo: string | null, media: BackupMediaSource, now: Date): Promise<BackupResult> {
  const job = { source: 'file' in database ? database.file : copy, copy, gzipTo, busyTimeoutMs: SNAPSHOT_BUSY_MS };
  let copyMs: number;
  if ('file' in database) copyMs = (await takeSnapshot(job, 'copy')).copyMs;
  else {
    const started = performance.now();
    await copyPostgresToSqlite(database.url, copy, now.toISOString());
    copyMs = performance.now() - started;
  }
  const mediaResult = await addMediaToSnapshot(copy, media.store, media.plan);
  const finished = await takeSnapshot(job, 'finish');
  return { ...finished, copyMs, media: mediaResult };
}

/**
 * Writes a consistent snapshot of the live database and its images to `file`: gzip-compressed
 * when the name ends in `.gz`, a plain SQLite file otherwise. Refuses to overwrite an existing
 * file. Leftovers of killed backups beside it are removed first (`leftovers`).
 */
export async function backupToFile(database: BackupDatabase, file: string, media: BackupMediaSource): Promise<BackupResult & { leftovers: string[] }> {
  if (existsSync(file)) throw new SnapshotError(`${file} exists; choose a new file name`);
  const gzip = file.endsWith('.gz');
  const leftovers = await removeBackupLeftovers(dirname(file));
  // The copy is made beside the target, then renamed: a half-written backup never has its name.
  const partial = scratchPath(dirname(file));
  try {
    const result = await snapshotWithMedia(database, partial, gzip ? `${partial}.gz` : null, media, new Date());
    await rename(gzip ? `${partial}.gz` : partial, file);
    return { ...result, leftovers };
  } finally {
    for (const suffix of ['', '.gz', '-wal', '-shm']) await rm(`${partial}${suffix}`, { force: true });
    releaseScratch(partial);
  }
}

export interface StoreBackupResult {
  key: string;
  bytes: number;
  dbBytes: number;
  media: MediaCopyResult;
  ms: number;
  /** Older backups removed to keep FOLIO_BACKUP_KEEP. */
  removed: string[];
}

export class Backups {
  private running: Promise<StoreBackupResult> | null = null;

  /** `sql` is the process's client: on PostgreSQL the nodes claim each scheduled backup through it (backupTurn.ts). */
  constructor(
    private readonly deps: {
      database: BackupDatabase;
      sql: SqlClient;
      dataDir: string;
      store: SiteStore;
      clock: Clock;
      logger: Logger;
      keep: number;
      media: MediaPlan;
    },
  ) {}

  /**
   * One compressed snapshot into the store, then retention. A backup still running when the
   * next one is due is not doubled: the caller gets the running one.
   */
  toStore(): Promise<StoreBackupResult> {
    this.running ??= this.run().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /**
   * The scheduler's entry: logs the outcome, never throws (a failed backup must not stop the
   * server). On PostgreSQL only the node that claims the scheduled time writes its backup, and
   * renews its claim while it runs; a claimed backup that fails is logged by that node and not
   * taken over, one whose node died is (`takeOverAbandoned`).
   */
  async scheduled(): Promise<void> {
    try {
      const now = this.deps.clock.now();
      const slot = backupSlot(now);
      if (this.deps.sql.dialect !== 'postgres') return await this.writeLogged();
      if (!(await claimBackupSlot(this.deps.sql, slot, now.toISOString(), this.leaseFrom(now)))) {
        this.deps.logger.debug({ slot }, 'backup: another node writes this one');
        return;
      }
      await this.writeClaimed(slot);
    } catch (err) {
      this.deps.logger.error({ err }, 'backup failed; the next one runs at its time');
    }
  }

  /**
   * On PostgreSQL, every minute: writes the backup of a scheduled time whose node stopped renewing
   * its claim before it ended (it died). Never throws.
   */
  async takeOverAbandoned(): Promise<void> {
    if (this.deps.sql.dialect !== 'postgres') return;
    try {
      const now = this.deps.clock.now();
      const slot = await takeOverBackupSlot(this.deps.sql, now.toISOString(), this.leaseFrom(now));
      if (slot === null) return;
      this.deps.logger.warn({ slot }, 'backup: the node that claimed this scheduled backup stopped before it ended; this node writes it');
      await this.writeClaimed(slot);
    } catch (err) {
      this.deps.logger.error({ err }, 'backup failed; the next one runs at its time');
    }
  }

  private leaseFrom(now: Date): string {
    return new Date(now.getTime() + BACKUP_LEASE_MS).toISOString();
  }

  /** Writes the backup of a claimed time, renewing the claim meanwhile; records it ended, written or not. */
  private async writeClaimed(slot: string): Promise<void> {
    const { sql, clock, logger } = this.deps;
    const renew = setInterval(() => {
      const now = clock.now();
      renewBackupClaim(sql, slot, now.toISOString(), this.leaseFrom(now)).catch((err: unknown) =>
        logger.warn({ err, slot }, 'backup: the claim could not be renewed; another node may write this backup too'),
      );
    }, BACKUP_LEASE_MS / 4);
    renew.unref();
    try {
      await this.writeLogged();
    } finally {
      clearInterval(renew);
      await finishBackupSlot(sql, slot, clock.now().toISOString());
    }
  }

  /** One backup into the store, its outcome logged; throws what failed. */
  private async writeLogged(): Promise<void> {
    const result = await this.toStore();
    const { media } = result;
    this.deps.logger.info(
      {
        object: result.key,
        bytes: result.bytes,
        dbBytes: result.dbBytes,
        ms: Math.round(result.ms),
        removed: result.removed.length,
        media: media.copiedToBackup ? { copied: media.copied, bytes: media.bytes } : `not copied: the ${media.objects} image objects stay in ${media.store}`,
      },
      'backup written to the store',
    );
    if (media.missing.length > 0) {
      this.deps.logger.warn(
        { missing: media.missing.length, first: media.missing.slice(0, 5) },
        'backup: image objects the database names are missing from the store; `folio site verify` lists them',
      );
    }
  }

  /** Removes what killed backups left in the data dir (at start); returns their names. */
  removeLeftovers(): Promise<string[]> {
    return removeBackupLeftovers(this.deps.dataDir);
  }

  /** Waits for a backup in progress (shutdown). */
  async idle(): Promise<void> {
    await this.running?.catch(() => undefined);
  }

  private async run(): Promise<StoreBackupResult> {
    const started = performance.now();
    // In the data dir, not the system's temp dir: on the database's disk, which has room for a
    // copy of it, and found again at the next start if the server is killed meanwhile.
    const { database } = this.deps;
    const dir = scratchPath('file' in database ? dirname(database.file) : this.deps.dataDir);
    try {
      await mkdir(dir, { recursive: true });
      const copy = join(dir, 'folio.db');
      const snapshot = await snapshotWithMedia(database, copy, `${copy}.gz`, { store: this.deps.store, plan: this.deps.media }, this.deps.clock.now());
      const body = await readFile(`${copy}.gz`);
      const key = backupKey(this.deps.clock.now());
      await this.deps.store.put(key, body, { contentType: BACKUP_CONTENT_TYPE, cacheControl: BACKUP_CACHE_CONTROL });
      const removed = expiredBackups(await this.deps.store.list(BACKUP_PREFIX), this.deps.keep);
      if (removed.length > 0) await this.deps.store.deleteMany(removed);
      return { key, bytes: body.length, dbBytes: snapshot.dbBytes, media: snapshot.media, ms: performance.now() - started, removed };
    } finally {
      await rm(dir, { recursive: true, force: true });
      releaseScratch(dir);
    }
  }
}
