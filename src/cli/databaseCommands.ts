/** `folio database copy --to <postgres-url>` (docs/operations.md, "Moving from SQLite to PostgreSQL"). */
import { existsSync } from 'node:fs';
import type { Config } from '../config/config.js';
import { databaseFile } from '../compose/adapters.js';
import { describePostgres } from '../compose/database.js';
import { CopyRefusedError } from '../db/copy/copyDatabase.js';
import { copySqliteToPostgres } from '../db/copy/copyToPostgres.js';
import { liveServerPid } from '../runtime/serverPidFile.js';
import { CommandError, CommandFailed, UsageError } from './cliErrors.js';
import type { Invocation } from './invocation.js';

/**
 * Copies the SQLite database of FOLIO_DATA_DIR into an empty PostgreSQL database. The store
 * (sites, images) stays where it is: it does not depend on the database.
 */
export async function databaseCopyCommand(config: Config, invocation: Invocation): Promise<number> {
  const to = invocation.values.string('to');
  if (!to) throw new UsageError('database copy takes --to <postgres-url>');
  let target: string;
  try {
    const url = new URL(to);
    if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') throw new Error('not postgres');
    target = describePostgres(to);
  } catch {
    throw new UsageError('--to takes a PostgreSQL URL: postgres://user:password@host:5432/database');
  }
  // Writes the server makes after the copy has read its snapshot would be lost.
  const server = liveServerPid(config.dataDir);
  if (server !== null) {
    throw new CommandFailed(`a Folio server (pid ${server}) is running on ${config.dataDir}; stop the server first, then run database copy again`, 2);
  }
  const file = databaseFile(config);
  if (!existsSync(file)) throw new CommandError(`no database at ${file} (check FOLIO_DATA_DIR)`);
  const started = performance.now();
  let result;
  try {
    result = await copySqliteToPostgres(file, to, new Date().toISOString());
  } catch (err) {
    if (err instanceof CopyRefusedError) throw new CommandFailed(`${err.message}; ${target} is left as it was`, 2);
    // node-postgres' messages never carry the URL; named here without its password.
    if (!(err instanceof Error) || !('code' in err)) throw err;
    throw new CommandError(`copying into ${target} failed, nothing was committed there: ${err.message}`);
  }
  const seconds = (performance.now() - started) / 1000;
  const rows = result.tables.reduce((sum, table) => sum + table.rows, 0);
  if (invocation.values.boolean('json')) {
    process.stdout.write(`${JSON.stringify({ from: file, to: target, rows, seconds: Number(seconds.toFixed(1)), ...result })}\n`);
    return 0;
  }
  const out = (line: string) => process.stdout.write(`${line}\n`);
  out(`Copied ${file} into PostgreSQL ${target}: ${rows} rows in ${result.tables.length} tables, in ${seconds.toFixed(1)} s; each table's row count checked.`);
  for (const table of result.tables.filter((t) => t.rows > 0)) out(`  ${table.table.padEnd(26)}${String(table.rows).padStart(9)}`);
  out(`Not copied: ${result.skipped.map((s) => s.table).join(', ')} (rebuilt or started afresh).`);
  if (result.discoveryJobs > 0) out(`Queued ${result.discoveryJobs} discovery jobs: the server fills the discovery index when it starts.`);
  out('The store (sites, images) is unchanged.');
  out('Next: set FOLIO_DATABASE_URL to this database, start the server, then run `folio site verify <blog-slug>`.');
  return 0;
}
