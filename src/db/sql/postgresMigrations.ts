/**
 * The schema on PostgreSQL (issue #32). It starts at `migrations/postgres/024_baseline.sql`,
 * the schema SQLite reached at migration 024; every later migration is the shared file of
 * `migrations/` unless `migrations/postgres/` has one of the same number (SQL that differs).
 *
 * Several nodes may start at once: the whole run holds a transaction-scoped advisory lock, so one
 * node applies what is missing and the others find it applied. DDL is transactional in
 * PostgreSQL: a migration that fails leaves nothing behind.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pgModule } from './pgModule.js';
import { migrationsDir } from '../../lib/paths.js';

/** Any constant both sides agree on: the lock is held only by Folio's migrations. */
const MIGRATION_LOCK = 0x466f6c696f; // "Folio"
const BASELINE = 24;
const MIGRATION_FILE = /^\d{3}_[\w-]+\.sql$/;

/** Applies what the database lacks; returns the names applied (none: it was current). */
export async function migratePostgres(connectionString: string, dir = migrationsDir): Promise<string[]> {
  const { Client } = pgModule();
  const client = new Client({ connectionString });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
    const applied = new Set((await client.query<{ version: string }>('SELECT version FROM schema_migrations')).rows.map((row) => Number(row.version)));
    const done: string[] = [];
    for (const { version, name, file } of pending(dir)) {
      if (applied.has(version)) continue;
      // No parameters: the simple protocol, which runs a file of several statements.
      await client.query(readFileSync(file, 'utf8'));
      await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [version, name, new Date().toISOString()]);
      done.push(name);
    }
    await client.query('COMMIT');
    return done;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    await client.end();
  }
}

/** The baseline, then every shared migration after it, each replaced by PostgreSQL's own text where there is one. */
function pending(dir: string): { version: number; name: string; file: string }[] {
  const own = join(dir, 'postgres');
  const ownFiles = new Map(
    readdirSync(own)
      .filter((name) => MIGRATION_FILE.test(name))
      .map((name) => [Number(name.slice(0, 3)), name] as const),
  );
  const baseline = ownFiles.get(BASELINE);
  if (!baseline) throw new Error(`${own} has no ${BASELINE}_*.sql baseline`);
  const later = readdirSync(dir)
    .filter((name) => MIGRATION_FILE.test(name) && Number(name.slice(0, 3)) > BASELINE)
    .sort()
    .map((name) => {
      const version = Number(name.slice(0, 3));
      const replaced = ownFiles.get(version);
      return { version, name, file: replaced ? join(own, replaced) : join(dir, name) };
    });
  return [{ version: BASELINE, name: baseline, file: join(own, baseline) }, ...later];
}
