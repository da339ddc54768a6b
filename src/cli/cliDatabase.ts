import type { Config } from '../config/config.js';
import type { Repos } from '../compose/folio.js';
import { createRepos } from '../compose/storage.js';
import { openConfiguredDatabase } from '../compose/database.js';
import type { SqlClient } from '../db/sql/sqlClient.js';

/** A command's own connections to the configured database, closed after `work` (also when it fails). */
export async function withDatabase<T>(config: Config, work: (data: { sql: SqlClient; repos: Repos }) => T | Promise<T>): Promise<T> {
  const database = await openConfiguredDatabase(config);
  try {
    return await work({ sql: database.sql, repos: createRepos(database.sql, database.version) });
  } finally {
    await database.close();
  }
}
