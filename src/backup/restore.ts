/**
 * `folio restore`: a backup (a file, plain or gzip, or a `_backups/…` key of the store) becomes
 * the database of an empty data dir. It is checked before it gets its name, so a server never
 * starts on a damaged or foreign file.
 */
import Database from 'better-sqlite3';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

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
}

/** What may already be in a data dir that counts as empty: the folder store's sites, rebuilt from the database. */
const REBUILT_FROM_DATABASE = new Set(['public']);

export function assertEmptyDataDir(dataDir: string): void {
  if (!existsSync(dataDir)) return;
  const present = readdirSync(dataDir).filter((name) => !REBUILT_FROM_DATABASE.has(name));
  if (present.length > 0) {
    throw new RestoreError(`${dataDir} is not empty (${present.slice(0, 3).join(', ')}${present.length > 3 ? ', …' : ''}); restore only into an empty data dir, so nothing is overwritten`);
  }
}

const GZIP_MAGIC = [0x1f, 0x8b];
const SQLITE_MAGIC = 'SQLite format 3\0';

/** Writes `backup` as `<dataDir>/folio.db` after checking it is a sound Folio database. */
export function restoreDatabase(backup: Buffer, dataDir: string, dbFile: string): RestoreSummary {
  assertEmptyDataDir(dataDir);
  const bytes = backup[0] === GZIP_MAGIC[0] && backup[1] === GZIP_MAGIC[1] ? gunzip(backup) : backup;
  if (bytes.subarray(0, 16).toString('latin1') !== SQLITE_MAGIC) throw new RestoreError('not a Folio backup: neither an SQLite database nor a gzip of one');
  mkdirSync(dataDir, { recursive: true });
  const partial = join(dataDir, '.folio.db.restoring');
  writeFileSync(partial, bytes, { flag: 'w' });
  try {
    const summary = check(partial);
    renameSync(partial, dbFile);
    return summary;
  } finally {
    rmSync(partial, { force: true });
  }
}

function gunzip(bytes: Buffer): Buffer {
  try {
    return gunzipSync(bytes);
  } catch (err) {
    throw new RestoreError(`the backup is not a complete gzip file (${err instanceof Error ? err.message : String(err)})`);
  }
}

function check(file: string): RestoreSummary {
  let db: Database.Database;
  try {
    db = new Database(file, { fileMustExist: true });
  } catch (err) {
    throw new RestoreError(`the backup cannot be opened as SQLite: ${err instanceof Error ? err.message : String(err)}`);
  }
  try {
    const rows = db.pragma('integrity_check') as { integrity_check: string }[];
    if (rows.length !== 1 || rows[0]?.integrity_check !== 'ok') throw new RestoreError(`the backup fails SQLite's integrity check: ${rows[0]?.integrity_check ?? 'no answer'}`);
    const tables = new Set((db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((r) => r.name));
    for (const table of ['schema_migrations', 'accounts', 'api_keys', 'blogs', 'posts']) {
      if (!tables.has(table)) throw new RestoreError(`not a Folio database: it has no ${table} table`);
    }
    const count = (table: string): number => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    db.pragma('journal_mode = WAL');
    return { accounts: count('accounts'), blogs: count('blogs'), posts: count('posts'), migrations: count('schema_migrations') };
  } finally {
    db.close();
  }
}
