/** `folio backup`, `folio backup list` and `folio restore` (docs/operations.md, "Backups and restore"). */
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import type { Config } from '../config/config.js';
import { closeSiteStore, createSiteStore, databaseFile, storeLabel } from '../compose/adapters.js';
import { backupToFile, type BackupDatabase } from '../backup/backups.js';
import { describePostgres } from '../compose/database.js';
import { describeKeys } from '../backup/backupMedia.js';
import { BACKUP_PREFIX, backupKeys, backupTime } from '../backup/backupKeys.js';
import { assertEmptyDataDir, restoreDatabase, restoreIntoPostgres, type BackupSource } from '../backup/restore.js';
import { SettingsRepo } from '../db/settingsRepo.js';
import { checkStoreForCommand } from '../services/storeSettings.js';
import { CommandError, CommandFailed, UsageError } from './cliErrors.js';
import { withDatabase } from './cliDatabase.js';

/**
 * Refuses, like `site rebuild`, when this environment names another store than the one the data
 * dir publishes to: a backup would copy no image (exit 0), a listing would find no backup. A data
 * dir without a database (listing from a new machine) has nothing recorded; on PostgreSQL the
 * database is never in the data dir, and is always asked.
 */
async function checkRecordedStore(config: Config): Promise<void> {
  if (!config.databaseUrl && !existsSync(databaseFile(config))) return;
  await withDatabase(config, ({ sql }) => checkStoreForCommand(new SettingsRepo(sql), config));
}

/** `12.3 kB` below a megabyte (a small blog's backup would read `0.0 MB`), `51.2 MB` above. */
const mb = (bytes: number): string => (bytes < 1e6 ? `${(bytes / 1e3).toFixed(1)} kB` : `${(bytes / 1e6).toFixed(1)} MB`);
const seconds = (since: number): string => `${((performance.now() - since) / 1000).toFixed(1)} s`;

export async function backupCommand(config: Config, args: string[]): Promise<number> {
  if (args[0] === 'list') return listBackups(config, args.slice(1));
  const { values, positionals } = parseArgs({ args, options: { 'no-media': { type: 'boolean' } }, allowPositionals: true, strict: true });
  const [file, ...extra] = positionals;
  if (!file || extra.length > 0) throw new UsageError('backup takes <file> [--no-media], or list');
  const dbFile = databaseFile(config);
  if (!config.databaseUrl && !existsSync(dbFile)) throw new CommandError(`no database at ${dbFile} (check FOLIO_DATA_DIR)`);
  // On PostgreSQL the database is copied into a new SQLite file: a backup is the same file on both.
  const database: BackupDatabase = config.databaseUrl ? { url: config.databaseUrl } : { file: dbFile };
  const from = config.databaseUrl ? `PostgreSQL ${describePostgres(config.databaseUrl)}` : dbFile;
  // Before SQLite's "unable to open database" about the hidden partial file written beside it.
  if (!existsSync(dirname(file))) throw new CommandError(`directory ${dirname(file)} does not exist`);
  await checkRecordedStore(config);
  const started = performance.now();
  const where = storeLabel(config);
  const copy = values['no-media'] !== true;
  const result = await backupToFile(database, file, { store: createSiteStore(config), plan: { copy, store: where } });
  const out = (line: string) => process.stdout.write(`${line}\n`);
  for (const name of result.leftovers) out(`Removed ${name}, left by a backup that was killed.`);
  const size = result.gzipBytes ?? result.dbBytes;
  out(`Backed up ${from} to ${file}: ${mb(size)}${result.gzipBytes === null ? '' : ` (gzip of ${mb(result.dbBytes)})`} in ${seconds(started)}.`);
  const { media } = result;
  if (media.copiedToBackup) out(`Images: ${media.copied} objects (${mb(media.bytes)}) from ${where} are in the backup.`);
  else
    process.stderr.write(
      `folio: warning: images NOT in this backup (--no-media): their ${media.objects} objects stay in ${where}; keep that store safe, restore checks them\n`,
    );
  if (media.missing.length > 0) {
    process.stderr.write(
      `folio: warning: ${media.missing.length} image objects the database names are missing from ${where}, so not in the backup: ${describeKeys(media.missing)}\n`,
    );
  }
  return 0;
}

/** `folio backup list`: the backups the server wrote into the store (FOLIO_BACKUP_INTERVAL). */
async function listBackups(config: Config, args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, options: { json: { type: 'boolean' } }, allowPositionals: true, strict: true });
  if (positionals.length > 0) throw new UsageError('backup list takes no arguments (only --json)');
  await checkRecordedStore(config);
  const store = createSiteStore(config);
  const where = storeLabel(config);
  const keys = backupKeys(await store.list(BACKUP_PREFIX)).reverse();
  const rows = await Promise.all(keys.map(async (key) => ({ key, taken_at: backupTime(key)!.toISOString(), bytes: await store.size(key) })));
  const present = rows.filter((row): row is typeof row & { bytes: number } => row.bytes !== null);
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ store: where, backups: present })}\n`);
    return 0;
  }
  if (present.length === 0) {
    process.stdout.write(`No backups under ${BACKUP_PREFIX} in ${where} (the server writes them when FOLIO_BACKUP_INTERVAL is set).\n`);
    return 0;
  }
  process.stdout.write(`${present.length} backups in ${where}, newest first (restore one with: folio restore <key>):\n`);
  for (const row of present) process.stdout.write(`${row.key}  ${row.taken_at}  ${mb(row.bytes).padStart(10)}\n`);
  return 0;
}

export async function restoreCommand(config: Config, args: string[]): Promise<number> {
  const [source, ...extra] = args;
  if (!source || extra.length > 0) throw new UsageError('restore takes <file> or <_backups/key>');
  // Checked before reading: a backup can be large, and the answer does not depend on it. On
  // PostgreSQL the database must be empty instead (restoreIntoPostgres checks it first).
  if (!config.databaseUrl) assertEmptyDataDir(config.dataDir);
  const started = performance.now();
  const store = createSiteStore(config);
  const where = storeLabel(config);
  let backup: BackupSource;
  if (source.startsWith(BACKUP_PREFIX) && !existsSync(source)) {
    const stored = await store.get(source);
    if (!stored) throw new CommandError(`no backup ${source} in the site store (FOLIO_STORAGE=${config.storage}); \`folio backup list\` shows what is there`);
    backup = { bytes: stored.body };
  } else {
    if (!existsSync(source)) throw new CommandError(`no file ${source}`);
    backup = { file: source };
  }
  const summary = config.databaseUrl
    ? await restoreIntoPostgres(backup, config.dataDir, config.databaseUrl, store)
    : await restoreDatabase(backup, config.dataDir, databaseFile(config), store);
  await closeSiteStore(store);
  const into = config.databaseUrl ? `PostgreSQL ${describePostgres(config.databaseUrl)}` : databaseFile(config);
  const { media } = summary;
  const out = (line: string) => process.stdout.write(`${line}\n`);
  out(
    `Restored ${source} into ${into}: ${summary.accounts} accounts, ${summary.blogs} blogs, ${summary.posts} posts, ${summary.migrations} migrations applied, in ${seconds(started)}.`,
  );
  if (media.inBackup === 'copied') out(`Images: ${media.restored} objects put into ${where}.`);
  else {
    const why =
      media.inBackup === 'not_copied' ? `the backup left them in ${media.backupStore ?? 'the store'}` : 'the backup is from a Folio that did not copy them';
    // "has all" only when it does: otherwise the failure below names what is missing.
    const checked =
      media.missing.length === 0
        ? `checked that ${where} has all ${media.objects} objects the database names`
        : `checked ${where} for the ${media.objects} objects the database names`;
    process.stderr.write(`folio: warning: images are not in this backup (${why}); ${checked}\n`);
  }
  out('Next: start the server (npm start), then run `folio site rebuild --all` to re-render every blog and its search index.');
  if (media.missing.length > 0) {
    throw new CommandFailed(
      `the database is restored, but ${media.missing.length} of ${media.objects} image objects it names are missing from ${where}; their images will answer 404 until they are uploaded again or copied there: ${describeKeys(media.missing)}`,
      1,
    );
  }
  return 0;
}
