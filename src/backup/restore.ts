/**
 * `folio restore`: a backup (a file, plain or gzip, or a `_backups/…` key of the store) becomes
 * the database of an empty data dir (or of an empty PostgreSQL database), and its images objects
 * of the configured store. It is
 * checked before it gets its name, so a server never starts on a damaged or foreign file.
 */
import Database from 'better-sqlite3';
import { createReadStream, createWriteStream, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import type { SiteStore } from '../storage/siteStore.js';
import { restoreMedia, type MediaRestoreResult } from './backupMedia.js';
import { assertNoFolioRows, CopyRefusedError } from '../db/copy/copyDatabase.js';
import { copySqliteToPostgres } from '../db/copy/copyToPostgres.js';
import { migratePostgres } from '../db/sql/postgresMigrations.js';
import { PostgresClient } from '../db/sql/postgresClient.js';

export class RestoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RestoreError';
  }
}

export interface RestoreSummary {
  accounts: number;
  blogs: number;
  posts: number;
  migrations: number;
  media: MediaRestoreResult;
}

/** Where a restore writes the database before it is checked; a killed restore leaves it behind. */
const RESTORING = '.folio.db.restoring';

/**
 * What may already be in a data dir that counts as empty: the folder store's sites, rebuilt from
 * the database (and images restored into it), and what a killed restore left.
 */
const REBUILT_FROM_DATABASE = new Set(['public', RESTORING]);

export function assertEmptyDataDir(dataDir: string): void {
  if (!existsSync(dataDir)) return;
  const present = readdirSync(dataDir).filter((name) => !REBUILT_FROM_DATABASE.has(name));
  if (present.length > 0) {
    throw new RestoreError(
      `${dataDir} is not empty (${present.slice(0, 3).join(', ')}${present.length > 3 ? ', …' : ''}); restore only into an empty data dir, so nothing is overwritten`,
    );
  }
}

const GZIP_MAGIC = [0x1f, 0x8b];
const SQLITE_MAGIC = 'SQLite format 3\0';

export type BackupSource = { file: string } | { bytes: Buffer };

/**
 * Writes the backup as `<dataDir>/folio.db` after checking it is a sound Folio database, and
 * puts the images it holds into `store`. Streamed: a backup with its images can be larger than
 * memory.
 */
export async function restoreDatabase(source: BackupSource, dataDir: string, dbFile: string, store: SiteStore): Promise<RestoreSummary> {
  assertEmptyDataDir(dataDir);
  mkdirSync(dataDir, { recursive: true });
  const partial = join(dataDir, RESTORING);
  rmSync(partial, { force: true });
  try {
    const counts = await unpack(source, partial);
    const media = await restoreMedia(partial, store);
    const db = new Database(partial, { fileMustExist: true });
    db.pragma('journal_mode = WAL');
    db.close();
    await rename(partial, dbFile);
    return { ...counts, media };
  } finally {
    await rm(partial, { force: true });
  }
}

/**
 * Restores a backup (the same file as on SQLite) into the empty PostgreSQL database at `url`:
 * unpacked and checked in the data dir as above, copied row by row (db/copy/), then its images
 * put into `store`. A database that already holds Folio rows is refused before anything is read.
 */
export async function restoreIntoPostgres(source: BackupSource, dataDir: string, url: string, store: SiteStore): Promise<RestoreSummary> {
  await migratePostgres(url);
  const target = new PostgresClient(url);
  try {
    await assertNoFolioRows(target);
  } catch (err) {
    if (err instanceof CopyRefusedError) throw new RestoreError(`${err.message} (restore into a new database)`);
    throw err;
  } finally {
    await target.close();
  }
  mkdirSync(dataDir, { recursive: true });
  const partial = join(dataDir, RESTORING);
  rmSync(partial, { force: true });
  try {
    const counts = await unpack(source, partial);
    // The backup's own tables (its images) are SQLite's only: the copy passes them over.
    await copySqliteToPostgres(partial, url, new Date().toISOString()).catch((err: unknown) => {
      throw err instanceof CopyRefusedError ? new RestoreError(err.message) : err;
    });
    return { ...counts, media: await restoreMedia(partial, store) };
  } finally {
    for (const suffix of ['', '-wal', '-shm']) await rm(`${partial}${suffix}`, { force: true });
  }
}

/** Writes the backup, gunzipped if need be, to `partial` and checks it is a sound Folio database. */
async function unpack(source: BackupSource, partial: string): Promise<Omit<RestoreSummary, 'media'>> {
  const head = 'file' in source ? await firstBytes(source.file, 2) : source.bytes.subarray(0, 2);
  const gzip = head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1];
  const input = (): Readable => ('file' in source ? createReadStream(source.file) : Readable.from([source.bytes]));
  await write(input(), gzip, createWriteStream(partial, { flags: 'wx' }));
  if ((await firstBytes(partial, 16)).toString('latin1') !== SQLITE_MAGIC)
    throw new RestoreError('not a Folio backup: neither an SQLite database nor a gzip of one');
  return check(partial);
}

async function write(input: Readable, gzip: boolean, output: Writable): Promise<void> {
  try {
    await (gzip ? pipeline(input, createGunzip(), output) : pipeline(input, output));
  } catch (err) {
    if (gzip) throw new RestoreError(`the backup is not a complete gzip file (${err instanceof Error ? err.message : String(err)})`);
    throw err;
  }
}

async function firstBytes(file: string, n: number): Promise<Buffer> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(n);
    const { bytesRead } = await handle.read(buffer, 0, n, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

function check(file: string): Omit<RestoreSummary, 'media'> {
  let db: Database.Database;
  try {
    db = new Database(file, { fileMustExist: true });
  } catch (err) {
    throw new RestoreError(`the backup cannot be opened as SQLite: ${err instanceof Error ? err.message : String(err)}`);
  }
  try {
    const rows = db.pragma('integrity_check') as { integrity_check: string }[];
    if (rows.length !== 1 || rows[0]?.integrity_check !== 'ok')
      throw new RestoreError(`the backup fails SQLite's integrity check: ${rows[0]?.integrity_check ?? 'no answer'}`);
    const tables = new Set((db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((r) => r.name));
    for (const table of ['schema_migrations', 'accounts', 'api_keys', 'blogs', 'posts']) {
      if (!tables.has(table)) throw new RestoreError(`not a Folio database: it has no ${table} table`);
    }
    const count = (table: string): number => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    return { accounts: count('accounts'), blogs: count('blogs'), posts: count('posts'), migrations: count('schema_migrations') };
  } finally {
    db.close();
  }
}
