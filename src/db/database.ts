/**
 * Opens the SQLite database and brings its schema up to date. WAL mode lets the server and the
 * `folio` CLI use the same file at once; the busy timeout makes a writer wait for the other
 * instead of failing.
 */
import Database from 'better-sqlite3';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { migrationsDir } from '../paths.js';

export type Db = Database.Database;

/**
 * How long a statement of the server's connection waits for a lock inside SQLite: while it
 * waits, the event loop is blocked. Write transactions wait longer by retrying after timers
 * (writeTransaction.ts); the command line keeps a long timeout, it serves no one else.
 */
export const SERVER_BUSY_TIMEOUT_MS = 10;
export const CLI_BUSY_TIMEOUT_MS = 5_000;

export function openDatabase(file: string, options: { busyTimeoutMs?: number } = {}): Db {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  // Migrations at start-up may wait for a CLI command to finish; nothing is served yet.
  db.pragma(`busy_timeout = ${CLI_BUSY_TIMEOUT_MS}`);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.pragma('synchronous = NORMAL');
  // After a checkpoint the log is reused from its start; this trims what a burst left behind.
  db.pragma('journal_size_limit = 67108864');
  migrate(db);
  db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? CLI_BUSY_TIMEOUT_MS}`);
  return db;
}

/** Applies every `NNN_name.sql` not applied yet, each in its own transaction, in order. */
export function migrate(db: Db): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  const applied = new Set(
    db.prepare('SELECT version FROM schema_migrations').all().map((row) => (row as { version: number }).version),
  );
  const files = readdirSync(migrationsDir)
    .filter((name) => /^\d{3}_[\w-]+\.sql$/.test(name))
    .sort();
  for (const name of files) {
    const version = Number(name.slice(0, 3));
    if (applied.has(version)) continue;
    const sql = readFileSync(join(migrationsDir, name), 'utf8');
    db.transaction(() => {
      db.exec(sql);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
        version,
        name,
        new Date().toISOString(),
      );
    }).immediate();
  }
}

/** True when SQLite could not get a lock another connection holds (SQLITE_BUSY and its variants). */
export function isDatabaseBusy(err: unknown): boolean {
  return typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' && (err.code === 'SQLITE_BUSY' || err.code.startsWith('SQLITE_BUSY_'));
}

/** True when better-sqlite3 reports a UNIQUE or PRIMARY KEY violation (matched on the code). */
export function isUniqueViolation(err: unknown): boolean {
  return (
    typeof err === 'object' &&
    err !== null &&
    'code' in err &&
    (err.code === 'SQLITE_CONSTRAINT_UNIQUE' || err.code === 'SQLITE_CONSTRAINT_PRIMARYKEY')
  );
}
