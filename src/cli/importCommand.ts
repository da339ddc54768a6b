/** `folio import <file> --account <account_id>` (README "Export and import"). */
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { parseArgs } from 'node:util';
import type { Config } from '../config.js';
import { compose } from '../compose.js';
import { CLI_BUSY_TIMEOUT_MS } from '../db/database.js';
import { createLogger } from '../logger.js';
import { AccountImporter, ImportError } from '../services/accountImport.js';
import { CommandError, UsageError } from './cliErrors.js';
import { progressBar } from './progressBar.js';

export async function importCommand(config: Config, args: string[], busyTimeoutMs?: number): Promise<number> {
  const { values, positionals } = parseArgs({ args, options: { account: { type: 'string' } }, allowPositionals: true });
  const [file, ...extra] = positionals;
  if (!file || extra.length > 0 || !values.account) throw new UsageError('import takes <file> --account <account_id>');
  if (!existsSync(file)) throw new CommandError(`no file ${file}`);
  let raw = await readFile(file);
  if (raw[0] === 0x1f && raw[1] === 0x8b) raw = gunzipSync(raw);
  let document: unknown;
  try {
    document = JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw new CommandError(`${file} is not JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  const folio = compose({ config, logger: createLogger('warn'), publicUrls: 'cli', busyTimeoutMs: busyTimeoutMs ?? CLI_BUSY_TIMEOUT_MS });
  try {
    if (!folio.repos.accounts.findById(values.account)) throw new CommandError(`no account ${values.account} (folio account list shows them)`);
    const importer = new AccountImporter({ db: folio.db, blogs: folio.repos.blogs, posts: folio.repos.posts, media: folio.repos.media, content: folio.content });
    const started = performance.now();
    let result;
    try {
      const doc = importer.check(document);
      result = await importer.import(values.account, doc, progressBar('importing posts'));
    } catch (err) {
      if (err instanceof ImportError) throw new CommandError(err.message);
      throw err;
    }
    // The site and its search index, rendered now so the blogs are live when this returns.
    for (const [i, blog] of result.blogs.entries()) {
      await folio.publisher.rebuild(blog, { force: true, withSearch: true, onProgress: progressBar(`publishing ${blog.slug} (${i + 1}/${result.blogs.length})`) });
    }
    process.stdout.write(`Imported ${result.blogs.length} blogs and ${result.posts} posts into account ${values.account} in ${((performance.now() - started) / 1000).toFixed(1)} s.\n`);
    for (const note of result.notes) process.stdout.write(`note: ${note}\n`);
    return 0;
  } finally {
    await folio.close();
  }
}
