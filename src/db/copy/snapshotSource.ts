/**
 * The source side of a database copy (copyDatabase.ts): reads that all see one consistent state
 * of the database, as of the first read, while other connections may go on writing. SQLite: a
 * connection of its own holding one read transaction (WAL lets writers go on); PostgreSQL: a
 * connection of its own in a REPEATABLE READ READ ONLY transaction. Both end with `close`.
 */
import Database from 'better-sqlite3';
import { numbersAsNumbers, pgModule } from '../sql/pgModule.js';
import { numberPlaceholders } from '../sql/placeholders.js';
import type { SqlDialect, SqlParams, SqlReader } from '../sql/sqlClient.js';

export interface SnapshotSource extends SqlReader {
  close(): Promise<void>;
}

/** A read snapshot of the SQLite database file `file` (already migrated). */
export function sqliteSnapshot(file: string): SnapshotSource {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  // Deferred: the snapshot is taken by the first read, and kept until the end.
  db.prepare('BEGIN').run();
  return {
    dialect: 'sqlite' satisfies SqlDialect,
    get: async <Row>(sql: string, params: SqlParams = []) => db.prepare(sql).get(...params) as Row | undefined,
    all: async <Row>(sql: string, params: SqlParams = []) => db.prepare(sql).all(...params) as Row[],
    close: async () => {
      if (db.inTransaction) db.prepare('COMMIT').run();
      db.close();
    },
  };
}

/** A read snapshot of the PostgreSQL database at `url` (already migrated). */
export async function postgresSnapshot(url: string): Promise<SnapshotSource> {
  const { Client } = pgModule();
  // As PostgresClient reads them: bigints as numbers, which SQLite's integers are too.
  const client = new Client({ connectionString: url, types: numbersAsNumbers() });
  await client.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  } catch (err) {
    await client.end();
    throw err;
  }
  const all = async <Row>(sql: string, params: SqlParams = []): Promise<Row[]> =>
    (await client.query(numberPlaceholders(sql), params as unknown[])).rows as Row[];
  return {
    dialect: 'postgres',
    all,
    get: async <Row>(sql: string, params: SqlParams = []) => (await all<Row>(sql, params))[0],
    close: async () => {
      await client.query('COMMIT').catch(() => undefined);
      await client.end();
    },
  };
}
