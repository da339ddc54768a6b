/**
 * Opens the SQLite database and brings its schema up to date. WAL mode lets the server and the
 * `folio` CLI use the same file at once; the busy timeout makes a writer wait for the other
 * instead of failing.
 */
import Database from 'better-sqlite3';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { migrationsDir } from '../lib/paths.js';
import { DatabaseOpenError, databaseOpenFailure } from './databaseFailure.js';

export type Db = Database.Database;

/**
 * How long a statement of the server's connection waits for a lock inside SQLite: while it
 * waits, the event loop is blocked. Write transactions wait longer by retrying after timers
 * (sql/sqliteClient.ts); the command line keeps a long timeout, it serves no one else.
 */
export const SERVER_BUSY_TIMEOUT_MS = 10;
export const CLI_BUSY_TIMEOUT_MS = 5_000;

export interface OpenDatabaseOptions {
  busyTimeoutMs?: number;
  /** Told the file names of the migrations this open applied (none: the schema was current). */
  onMigrated?: (names: string[]) => void;
}

export function openDatabase(file: string, options: OpenDatabaseOptions = {}): Db {
  let db: Db | undefined;
  try {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    // Migrations at start-up may wait for a CLI command to finish; nothing is served yet.
    db = openConnection(file, CLI_BUSY_TIMEOUT_MS);
    db.pragma('journal_mode = WAL');
    const applied = migrate(db, file);
    if (applied.length > 0) options.onMigrated?.(applied);
    db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? CLI_BUSY_TIMEOUT_MS}`);
    return db;
  } catch (err) {
    db?.close();
    throw databaseOpenFailure(err, file) ?? err;
  }
}

/**
 * SQLite's page cache per connection, in KiB. better-sqlite3 builds SQLite with 16 MB, which a
 * server's two connections fill over its first minutes of searches and publishes (malloc's heap
 * grew 16–21 → 33–34 MB under the soak bench). The file's pages stay in the kernel's cache
 * either way; at 2 MiB the soak's search and publish p95 and a 10,000-post reindex were no
 * slower (docs/performance.md, soak).
 */
const PAGE_CACHE_KIB = 2048;

/** A connection with the settings every Folio connection has (WAL is the file's, set once by openDatabase). */
export function openConnection(file: string, busyTimeoutMs: number): Db {
  const db = new Database(file);
  try {
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    db.pragma('foreign_keys = ON');
    db.pragma('synchronous = NORMAL');
    // After a checkpoint the log is reused from its start; this trims what a burst left behind.
    db.pragma('journal_size_limit = 67108864');
    db.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

/**
 * The database has migrations this build does not know: a newer Folio used it. Running on it
 * would read and write a schema this code was not written for, so the process refuses.
 */
export class SchemaTooNewError extends DatabaseOpenError {
  constructor(file: string, unknown: string[]) {
    super(
      `the database ${file} was upgraded by a newer Folio (migrations this build does not know: ${unknown.join(', ')}); ` +
        'run that version (or newer), or restore a backup made before the upgrade into a new data dir',
    );
    this.name = 'SchemaTooNewError';
  }
}

/**
 * Applies every `NNN_name.sql` not applied yet, each in its own transaction, in order, and returns
 * the names it applied. Refuses a database that has migrations no file here names.
 */
export function migrate(db: Db, file = db.name): string[] {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  const rows = db.prepare<[], { version: number; name: string }>('SELECT version, name FROM schema_migrations ORDER BY version').all();
  const applied = new Set(rows.map((row) => row.version));
  const files = readdirSync(migrationsDir)
    .filter((name) => /^\d{3}_[\w-]+\.sql$/.test(name))
    .sort();
  const known = new Set(files.map((name) => Number(name.slice(0, 3))));
  const unknown = rows.filter((row) => !known.has(row.version)).map((row) => row.name);
  if (unknown.length > 0) throw new SchemaTooNewError(file, unknown);
  const done: string[] = [];
  for (const name of files) {
    const version = Number(name.slice(0, 3));
    if (applied.has(version)) continue;
    const sql = readFileSync(join(migrationsDir, name), 'utf8');
    db.transaction(() => {
      db.exec(sql);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(version, name, new Date().toISOString());
    }).immediate();
    done.push(name);
  }
  return done;
}

/** True when SQLite could not get a lock another connection holds (SQLITE_BUSY and its variants). */
export function isDatabaseBusy(err: unknown): boolean {
  return (
    typeof err === 'object' &&
    err !== null &&
    'code' in err &&
    typeof err.code === 'string' &&
    (err.code === 'SQLITE_BUSY' || err.code.startsWith('SQLITE_BUSY_'))
  );
}

/** True when the database reports a UNIQUE or PRIMARY KEY violation (matched on the code). */
export function isUniqueViolation(err: unknown): boolean {
  if (typeof err !== 'object' || err === null || !('code' in err)) return false;
  // SQLite's extended codes; PostgreSQL's SQLSTATE unique_violation.
  return err.code === 'SQLITE_CONSTRAINT_UNIQUE' || err.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || err.code === '23505';
}
