import { inject } from 'vitest';
import { createPostgresDatabase } from './postgres.js';

/**
 * The database part of freshDataEnv (testApp.ts): on the PostgreSQL pass FOLIO_DATABASE_URL of a
 * new database, on the SQLite pass nothing (the file in the data dir). For a spawned server left
 * to make its own data dir (spawnServer), which a FOLIO_DATA_DIR would take for a restart. Kept
 * apart from testApp.ts so that a suite of spawned processes does not load the whole app.
 */
export async function freshDatabaseEnv(): Promise<Record<string, string>> {
  const postgresBase = inject('postgresBase');
  return postgresBase ? { FOLIO_DATABASE_URL: await createPostgresDatabase(postgresBase) } : {};
}
