import { loadConfig } from '../../src/config/config.js';
import { openConfiguredDatabase } from '../../src/compose/database.js';
import type { SqlClient } from '../../src/db/sql/sqlClient.js';

export interface DataSql {
  sql: SqlClient;
  /** Closes the connection; calls after the first wait for the same close. */
  close(): Promise<void>;
}

/**
 * A connection of the test's own to the database of a data env (TestApp.cliEnv,
 * SpawnedServer.cliEnv, freshDataEnv), opened as a `folio` command opens it: SQLite's file in the
 * data dir, or the PostgreSQL database FOLIO_DATABASE_URL names. For rows a test reads or sets
 * behind a server's back; the SQL must suit both (the seam's rules, src/db/sql/sqlClient.ts).
 */
export async function openDataSql(env: Record<string, string>): Promise<DataSql> {
  const database = await openConfiguredDatabase(loadConfig(env));
  // Once only: a test closes it where it is done with it, and a hook again should the test fail first.
  let closing: Promise<void> | null = null;
  return { sql: database.sql, close: () => (closing ??= database.close()) };
}

/** openDataSql around one piece of work, closed afterwards (also when it fails). */
export async function withDataSql<T>(env: Record<string, string>, work: (sql: SqlClient) => Promise<T>): Promise<T> {
  const data = await openDataSql(env);
  try {
    return await work(data.sql);
  } finally {
    await data.close();
  }
}
