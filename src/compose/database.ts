/**
 * Which database a process opens: SQLite's file in the data dir (the default, no other service),
 * or the PostgreSQL server FOLIO_DATABASE_URL names. Everything above the repositories works on
 * either through the query seam (src/db/sql/); the few parts that are SQLite's by nature (WAL
 * checkpoints, the listing's synchronous reads, the cache version, file backups) are given
 * SQLite's connection when there is one.
 */
import { mkdirSync } from 'node:fs';
import type { Config } from '../config/config.js';
import type { Logger } from '../lib/logger.js';
import { NO_CHECKPOINTER, startCheckpointer, type Checkpointer } from '../db/checkpointer.js';
import { openDatabase, type Db } from '../db/database.js';
import { migratePostgres } from '../db/sql/postgresMigrations.js';
import { PostgresChanges } from '../db/sql/postgresChanges.js';
import { PostgresClient } from '../db/sql/postgresClient.js';
import { SqliteClient } from '../db/sql/sqliteClient.js';
import { DatabaseUnavailableError, type SqlClient } from '../db/sql/sqlClient.js';
import { DbVersion, type ChangeVersion } from '../db/versionedCache.js';
import { databaseFile } from './adapters.js';

export interface OpenedDatabase {
  sql: SqlClient;
  /** SQLite's connection (its reads, and the SQLite-only parts); null on PostgreSQL. */
  sqlite: Db | null;
  /**
   * What the in-memory lookups (a key by hash, a blog by id) ask whether anything was written.
   * On PostgreSQL, the notices of every node's changes (PostgresChanges), when the process asked
   * for them (`listenForChanges`); without, those lookups read the database every time.
   */
  version: ChangeVersion | undefined;
  /** Moves SQLite's WAL into the file off the event loop (a no-op on PostgreSQL). */
  startCheckpointer(): Checkpointer;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** SQLite's busy timeout on the process's connection (the server's is short: database.ts). */
  busyTimeoutMs?: number;
  onMigrated?: (names: string[]) => void;
  /**
   * On PostgreSQL, keep the lookups in memory and listen for other nodes' changes (the server);
   * a short-lived command does not, and reads them from the database.
   */
  listenForChanges?: Pick<Logger, 'warn' | 'info'>;
}

export async function openConfiguredDatabase(config: Config, options: OpenDatabaseOptions = {}): Promise<OpenedDatabase> {
  if (config.databaseUrl) {
    const url = config.databaseUrl;
    // The data dir holds no database here, but still the folder store, the pid file and scratch copies.
    mkdirSync(config.dataDir, { recursive: true });
    const applied = await migratePostgres(url).catch((err: unknown) => {
      throw new DatabaseUnavailableError(`cannot prepare the PostgreSQL database ${describePostgres(url)} (FOLIO_DATABASE_URL): ${(err as Error).message}`, {
        cause: err,
      });
    });
    if (applied.length > 0) options.onMigrated?.(applied);
    const sql = new PostgresClient(url);
    const changes = options.listenForChanges ? new PostgresChanges({ connectionString: url, writes: sql, logger: options.listenForChanges }) : undefined;
    await changes?.start();
    return {
      sql,
      sqlite: null,
      version: changes,
      startCheckpointer: () => NO_CHECKPOINTER,
      close: async () => {
        await changes?.close();
        await sql.close();
      },
    };
  }
  const file = databaseFile(config);
  const db = openDatabase(file, {
    ...(options.busyTimeoutMs !== undefined ? { busyTimeoutMs: options.busyTimeoutMs } : {}),
    ...(options.onMigrated ? { onMigrated: options.onMigrated } : {}),
  });
  const sql = new SqliteClient(db);
  return {
    sql,
    sqlite: db,
    // One version for every cache, so a request asks SQLite once whether anything changed.
    version: new DbVersion(db),
    startCheckpointer: () => {
      const checkpointer = startCheckpointer(db, file, { alsoOn: sql });
      // At rest both stop (warmup/rest.ts); the first write after wakes the checkpointer again.
      sql.onWriterOpened(() => checkpointer.wake());
      return checkpointer;
    },
    close: async () => {
      await sql.close();
      db.close();
    },
  };
}

/** `host:port/database` of a PostgreSQL URL: what a message may say of it (never the password). */
export function describePostgres(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
}

/**
 * Stands in for SQLite's connection where a FolioCore on PostgreSQL has none (`folio.db`, which
 * tests and SQLite-only tools use): any use says why it cannot work.
 */
export function noSqliteConnection(): Db {
  return new Proxy({} as Db, {
    get(_target, property) {
      throw new Error(`folio.db.${String(property)}: this process runs on PostgreSQL (FOLIO_DATABASE_URL); it has no SQLite connection`);
    },
  });
}
