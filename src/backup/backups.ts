/**
 * Online backups of the database (README "Backups and restore"): `folio backup <file>` and the
 * server's scheduled snapshots into the site store under `_backups/`. The snapshot itself runs
 * on a worker thread (snapshot.ts); here are only the file and store steps around it.
 */
import { mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { existsSync } from 'node:fs';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { SiteStore } from '../storage/siteStore.js';
import { BACKUP_CACHE_CONTROL, BACKUP_CONTENT_TYPE, BACKUP_PREFIX, backupKey, expiredBackups } from './backupKeys.js';
import { takeSnapshot } from './snapshot.js';
import { SnapshotError, type SnapshotResult } from './snapshotCopy.js';

/** How long a snapshot waits for SQLite's lock; readers rarely wait at all in WAL mode. */
const SNAPSHOT_BUSY_MS = 5_000;

/**
 * Writes a consistent snapshot of the live database to `file`: gzip-compressed when the name
 * ends in `.gz`, a plain SQLite file otherwise. Refuses to overwrite an existing file.
 */
export async function backupToFile(dbFile: string, file: string): Promise<SnapshotResult> {
  if (existsSync(file)) throw new SnapshotError(`${file} exists; choose a new file name`);
  const gzip = file.endsWith('.gz');
  // The copy is made beside the target, then renamed: a half-written backup never has its name.
  const partial = join(dirname(file), `.${Date.now()}-${process.pid}.folio-backup.partial`);
  try {
    const result = await takeSnapshot({ source: dbFile, copy: partial, gzipTo: gzip ? `${partial}.gz` : null, busyTimeoutMs: SNAPSHOT_BUSY_MS });
    await rename(gzip ? `${partial}.gz` : partial, file);
    return result;
  } finally {
    await rm(partial, { force: true });
    await rm(`${partial}.gz`, { force: true });
  }
}

export interface StoreBackupResult {
  key: string;
  bytes: number;
  dbBytes: number;
  ms: number;
  /** Older backups removed to keep FOLIO_BACKUP_KEEP. */
  removed: string[];
}

export class Backups {
  private running: Promise<StoreBackupResult> | null = null;

  constructor(
    private readonly deps: { dbFile: string; store: SiteStore; clock: Clock; logger: Logger; keep: number },
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

  /** The scheduler's entry: logs the outcome, never throws (a failed backup must not stop the server). */
  async scheduled(): Promise<void> {
    try {
      const result = await this.toStore();
      this.deps.logger.info(
        { object: result.key, bytes: result.bytes, dbBytes: result.dbBytes, ms: Math.round(result.ms), removed: result.removed.length },
        'backup written to the store',
      );
    } catch (err) {
      this.deps.logger.error({ err }, 'backup failed; the next one runs at its time');
    }
  }

  /** Waits for a backup in progress (shutdown). */
  async idle(): Promise<void> {
    await this.running?.catch(() => undefined);
  }

  private async run(): Promise<StoreBackupResult> {
    const started = performance.now();
    const dir = await mkdtemp(join(tmpdir(), 'folio-backup-'));
    try {
      const copy = join(dir, 'folio.db');
      const snapshot = await takeSnapshot({ source: this.deps.dbFile, copy, gzipTo: `${copy}.gz`, busyTimeoutMs: SNAPSHOT_BUSY_MS });
      const body = await readFile(`${copy}.gz`);
      const key = backupKey(this.deps.clock.now());
      await this.deps.store.put(key, body, { contentType: BACKUP_CONTENT_TYPE, cacheControl: BACKUP_CACHE_CONTROL });
      const removed = expiredBackups(await this.deps.store.list(BACKUP_PREFIX), this.deps.keep);
      if (removed.length > 0) await this.deps.store.deleteMany(removed);
      return { key, bytes: body.length, dbBytes: snapshot.dbBytes, ms: performance.now() - started, removed };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}
