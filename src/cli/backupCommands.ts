/** `folio backup` and `folio restore` (README "Backups and restore"). */
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import type { Config } from '../config.js';
import { createSiteStore, databaseFile } from '../compose.js';
import { backupToFile } from '../backup/backups.js';
import { BACKUP_PREFIX } from '../backup/backupKeys.js';
import { assertEmptyDataDir, restoreDatabase } from '../backup/restore.js';
import { CommandError, UsageError } from './cliErrors.js';

export async function backupCommand(config: Config, args: string[]): Promise<number> {
  const [file, ...extra] = args;
  if (!file || extra.length > 0) throw new UsageError('backup takes <file>');
  const dbFile = databaseFile(config);
  if (!existsSync(dbFile)) throw new CommandError(`no database at ${dbFile} (check FOLIO_DATA_DIR)`);
  const started = performance.now();
  const result = await backupToFile(dbFile, file);
  const size = result.gzipBytes ?? result.dbBytes;
  process.stdout.write(`Backed up ${dbFile} to ${file}: ${(size / 1e6).toFixed(1)} MB${result.gzipBytes === null ? '' : ` (gzip of ${(result.dbBytes / 1e6).toFixed(1)} MB)`} in ${((performance.now() - started) / 1000).toFixed(1)} s.\n`);
  return 0;
}

export async function restoreCommand(config: Config, args: string[]): Promise<number> {
  const [source, ...extra] = args;
  if (!source || extra.length > 0) throw new UsageError('restore takes <file> or <_backups/key>');
  // Checked before reading: a backup can be large, and the answer does not depend on it.
  assertEmptyDataDir(config.dataDir);
  const started = performance.now();
  let bytes: Buffer;
  if (source.startsWith(BACKUP_PREFIX) && !existsSync(source)) {
    const stored = await createSiteStore(config).get(source);
    if (!stored) throw new CommandError(`no backup ${source} in the site store (FOLIO_STORAGE=${config.storage})`);
    bytes = stored.body;
  } else {
    if (!existsSync(source)) throw new CommandError(`no file ${source}`);
    bytes = await readFile(source);
  }
  const summary = restoreDatabase(bytes, config.dataDir, databaseFile(config));
  process.stdout.write(
    `Restored ${source} into ${databaseFile(config)}: ${summary.accounts} accounts, ${summary.blogs} blogs, ${summary.posts} posts, ${summary.migrations} migrations applied, in ${((performance.now() - started) / 1000).toFixed(1)} s.\n` +
      'Next: start the server (npm start), then run `folio site rebuild --all` to re-render every blog and its search index.\n',
  );
  return 0;
}
