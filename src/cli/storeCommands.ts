/** `folio site migrate-store` (docs/configuration.md, "Moving to another store"). */
import { parseArgs } from 'node:util';
import type { Config } from '../config/config.js';
import { closeSiteStore, createSiteStore } from '../compose/adapters.js';
import { SettingsRepo } from '../db/settingsRepo.js';
import { systemClock } from '../lib/clock.js';
import { copyStore } from '../storage/copyStore.js';
import { configForStore, describeStore, readStoreRecord, sameStore, storeRecordOf, writeStoreRecord } from '../services/storeSettings.js';
import { MEDIA_DIR, mediaNames } from '../media/mediaNames.js';
import { missingKeys } from '../storage/missingKeys.js';
import { describeKeys } from '../backup/backupMedia.js';
import { liveServerPid } from '../runtime/serverPidFile.js';
import { progressBar } from './progressBar.js';
import { CommandFailed, UsageError } from './cliErrors.js';
import { withDatabase } from './cliDatabase.js';

/**
 * Moves the data dir to the store its environment names: copies every object from the recorded
 * store (the folder store when none is recorded: data dirs of earlier releases), then records
 * the new one. `--no-copy` only records it, for an old store that is gone (a restore on another
 * machine): `folio site rebuild --all` then renders every blog into the new store.
 */
export async function migrateStoreCommand(config: Config, args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, options: { 'no-copy': { type: 'boolean' } }, allowPositionals: true, strict: true });
  if (positionals.length > 0) throw new UsageError('site migrate-store takes no arguments, only --no-copy');
  // What a running server publishes after the move would go into the old store, and be lost.
  const server = liveServerPid(config.dataDir);
  if (server !== null) {
    throw new CommandFailed(`a Folio server (pid ${server}) is running on ${config.dataDir}; stop the server first, then run site migrate-store again`, 2);
  }
  return withDatabase(config, async ({ sql, repos }) => {
    const settings = new SettingsRepo(sql);
    const from = (await readStoreRecord(settings)) ?? { kind: 'fs' as const };
    const to = storeRecordOf(config);
    const toName = describeStore(to, config.dataDir);
    if (sameStore(from, to)) {
      await writeStoreRecord(settings, to, systemClock);
      process.stdout.write(`This data dir already publishes to ${toName}; nothing to copy.\n`);
      return 0;
    }
    const fromName = describeStore(from, config.dataDir);
    if (values['no-copy']) {
      await writeStoreRecord(settings, to, systemClock);
      process.stdout.write(
        `This data dir now publishes to ${toName}; nothing was copied from ${fromName}.\n` +
          'Next: run `folio site rebuild --all` with the same settings to render every blog into it, then start the server with them.\n',
      );
      // Pages can be rendered again, uploaded images cannot: say which the new store lacks.
      const keys: string[] = [];
      for (const blog of await repos.blogs.listAll()) {
        for (const row of await repos.media.allOfBlog(blog.id)) keys.push(...mediaNames(row).map((name) => `${blog.slug}/${MEDIA_DIR}/${name}`));
      }
      const missing = await missingKeys(createSiteStore(config), keys);
      if (missing.length > 0) {
        throw new CommandFailed(
          `${toName} is recorded, but ${missing.length} of the ${keys.length} image objects the database names are missing from it; their images will answer 404 until they are copied there (from ${fromName}, or a backup with \`folio restore\`) or uploaded again: ${describeKeys(missing)}`,
          1,
        );
      }
      return 0;
    }
    const started = performance.now();
    const into = createSiteStore(config);
    const copied = await copyStore(createSiteStore(configForStore(config, from)), into, progressBar('copying'));
    await closeSiteStore(into);
    // Recorded only once every object is in the new store: a failed copy leaves the data dir on the old one.
    await writeStoreRecord(settings, to, systemClock);
    process.stdout.write(
      `Copied ${copied.objects} objects (${(copied.bytes / 1e6).toFixed(1)} MB) from ${fromName} to ${toName} in ${((performance.now() - started) / 1000).toFixed(1)} s.\n` +
        `This data dir now publishes to ${toName}: start the server with the same settings. ${fromName[0]!.toUpperCase()}${fromName.slice(1)} is left as it was; remove it once the blogs answer from the new one.\n`,
    );
    return 0;
  });
}
