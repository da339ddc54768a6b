/** `folio import <file> --account <account_id>` (docs/operations.md, "Export and import"). */
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { parseArgs } from 'node:util';
import type { Config } from '../config/config.js';
import { composeCore } from '../compose/core.js';
import { CLI_BUSY_TIMEOUT_MS } from '../db/database.js';
import { IMPORTED, type PublishJob } from '../db/jobsRepo.js';
import { compileSchema, validationError } from '../http/middleware/validate.js';
import { createBlogBody, updateBlogBody } from '../http/routes/blogs.schema.js';
import { createPostBody } from '../http/routes/posts.schema.js';
import { createLogger } from '../lib/logger.js';
import { AccountImporter, ImportError, type Skipped } from '../services/accountImport.js';
import type { BodyCheck } from '../services/importChecks.js';
import { CommandError, UsageError } from './cliErrors.js';
import { progressBar } from './progressBar.js';

const SCHEMAS = { createBlog: createBlogBody, updateBlog: updateBlogBody, createPost: createPostBody };

/** The API's own request schemas, compiled by its own validator: an import refuses what the API refuses. */
const checkBody: BodyCheck = (name, body) => {
  const check = compileSchema(SCHEMAS[name], 'body');
  return check(body) ? null : validationError(check.errors, 'body').message;
};

const describe = (item: Skipped): string => `blog "${item.blog}"${item.post === undefined ? '' : `, post "${item.post}"`}: ${item.reason}`;

/** Exit status: 0 when everything was imported, 1 when some of it was not (each named), 2 for a file that is no export. */
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
  const folio = await composeCore({ config, logger: createLogger('warn'), publicUrls: 'cli', busyTimeoutMs: busyTimeoutMs ?? CLI_BUSY_TIMEOUT_MS });
  try {
    const account = await folio.repos.accounts.findById(values.account);
    if (!account) throw new CommandError(`no account ${values.account} (folio account list shows them)`);
    const { repos } = folio;
    const importer = new AccountImporter({
      sql: folio.sql,
      blogs: repos.blogs,
      posts: repos.posts,
      revisions: repos.revisions,
      media: repos.media,
      jobs: repos.jobs,
      content: folio.content,
      clock: folio.clock,
      checkBody,
    });
    const started = performance.now();
    let result;
    try {
      result = await importer.import(account, importer.check(document), progressBar('importing posts'));
    } catch (err) {
      if (err instanceof ImportError) throw new CommandError(err.message);
      throw err;
    }
    // A blog an earlier run wrote but could not render (killed, store down) is rendered now.
    const open: PublishJob[] = [];
    for (const blog of await repos.blogs.listByAccount(account.id)) open.push(...(await repos.jobs.listOpenForBlog(blog.id)));
    const unrendered = open.filter((job) => job.kind === 'site' && job.payload.reason === IMPORTED && !result.jobIds.includes(job.id));
    const jobIds = [...result.jobIds, ...unrendered.map((job) => job.id)];
    // The site and its search index, rendered now so the blogs are live when this returns.
    const publishing = progressBar('publishing blogs');
    for (const [i, id] of jobIds.entries()) {
      publishing(i, jobIds.length);
      await folio.runner.runNow([id]);
    }
    publishing(jobIds.length, jobIds.length);
    const ran: (PublishJob | null)[] = [];
    for (const id of jobIds) ran.push(await repos.jobs.findById(id));
    // An imported blog's job rendered its pages and indexes: the server's start need not again.
    for (const job of ran) if (job?.status === 'done') await folio.recordRenderedByCommand(job.blogId, { pages: true });
    const pending = ran.filter((job) => job && job.status !== 'done');
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const nothing = result.blogs.length === 0 ? ' Nothing was imported.' : '';
    process.stdout.write(`Imported ${result.blogs.length} blogs and ${result.posts} posts into account ${account.id} in ${seconds} s.${nothing}\n`);
    if (unrendered.length > 0)
      process.stdout.write(
        `Rendered ${unrendered.length} blog${unrendered.length === 1 ? '' : 's'} an earlier import wrote: ${unrendered.map((job) => job.blogSlug).join(', ')}\n`,
      );
    for (const note of result.notes) process.stdout.write(`note: ${note}\n`);
    for (const item of result.skipped) process.stderr.write(`folio: not imported: ${describe(item)}\n`);
    for (const job of pending) {
      process.stderr.write(
        `folio: blog "${job!.blogSlug}" was imported but its pages are not written yet (${job!.lastError ?? 'pending'}); the server retries, or run: folio site rebuild ${job!.blogSlug}\n`,
      );
    }
    return result.skipped.length > 0 || pending.length > 0 ? 1 : 0;
  } finally {
    await folio.close();
  }
}
