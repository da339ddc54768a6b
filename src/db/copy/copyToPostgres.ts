/**
 * A SQLite database file copied into an empty PostgreSQL database (`folio database copy`, and
 * `folio restore` on PostgreSQL), and a PostgreSQL database copied into a new SQLite file
 * (`folio backup` on PostgreSQL). Each side is migrated to the current schema first: the copy
 * moves rows between databases of the same schema version.
 */
import { openDatabase } from '../database.js';
import { migratePostgres } from '../sql/postgresMigrations.js';
import { PostgresClient } from '../sql/postgresClient.js';
import { SqliteClient } from '../sql/sqliteClient.js';
import { copyDatabase, type CopyResult } from './copyDatabase.js';
import { postgresSnapshot, sqliteSnapshot } from './snapshotSource.js';

export async function copySqliteToPostgres(sqliteFile: string, url: string, now: string): Promise<CopyResult> {
  // Brings an older data dir's file up to this build's schema, as the server's start would.
  openDatabase(sqliteFile).close();
  await migratePostgres(url);
  const source = sqliteSnapshot(sqliteFile);
  const target = new PostgresClient(url);
  try {
    return await copyDatabase(source, target, { now });
  } finally {
    await target.close();
    await source.close();
  }
}

/** `sqliteFile` must not exist yet: it is created, migrated and filled. */
export async function copyPostgresToSqlite(url: string, sqliteFile: string, now: string): Promise<CopyResult> {
  const db = openDatabase(sqliteFile);
  const target = new SqliteClient(db);
  try {
    const source = await postgresSnapshot(url);
    try {
      return await copyDatabase(source, target, { now });
    } finally {
      await source.close();
    }
  } finally {
    await target.close();
    db.close();
  }
}
