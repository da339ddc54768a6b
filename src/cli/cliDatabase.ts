import type { Config } from '../config/config.js';
import { databaseFile } from '../compose/adapters.js';
import type { Repos } from '../compose/folio.js';
import { createRepos } from '../compose/storage.js';
import { openDatabase, type Db } from '../db/database.js';
import { SqliteClient } from '../db/sql/sqliteClient.js';
import type { SqlClient } from '../db/sql/sqlClient.js';

/** A command's own connections to the data dir's database, closed after `work` (also when it fails). */
export async function withDatabase<T>(config: Config, work: (data: { db: Db; sql: SqlClient; repos: Repos }) => T | Promise<T>): Promise<T> {
  const db = openDatabase(databaseFile(config));
  const sql = new SqliteClient(db);
  try {
    return await work({ db, sql, repos: createRepos(db, sql) });
  } finally {
    await sql.close();
    db.close();
  }
}
