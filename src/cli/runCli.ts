/**
 * `folio` command line: argument parsing only; the work is done by the same services the API
 * uses, on the same FOLIO_DATA_DIR (SQLite in WAL mode, so a running server is fine).
 */
import '../threadPool.js';
import { parseArgs } from 'node:util';
import { ConfigError, debugRequested, loadConfig, type Config } from '../config.js';
import { CLI_BUSY_TIMEOUT_MS, openDatabase } from '../db/database.js';
import { databaseFile } from '../compose.js';
import { AccountsRepo } from '../db/accountsRepo.js';
import { ApiKeysRepo } from '../db/apiKeysRepo.js';
import { BlogsRepo } from '../db/blogsRepo.js';
import { JobsRepo } from '../db/jobsRepo.js';
import { AccountsService } from '../services/accounts.js';
import { isPlan, PLANS } from '../services/plans.js';
import { systemClock } from '../clock.js';
import { compose } from '../compose.js';
import { createLogger } from '../logger.js';
import { StorageError } from '../errors.js';
import { PublicUrlConflictError } from '../services/publicUrlSettings.js';
import { CommandError, CommandFailed, UsageError } from './cliErrors.js';
import { CdnPurgeError } from '../cdn/cdnPurger.js';
import { backupCommand, restoreCommand } from './backupCommands.js';
import { importCommand } from './importCommand.js';
import { mcpCommand } from './mcpCommand.js';
import { FolioApiError } from '../client/folioClient.js';
import { syncCommand } from './syncCommands.js';
import { progressBar } from './progressBar.js';
import { migrateStoreCommand } from './storeCommands.js';
import { DatabaseOpenError } from '../db/databaseFailure.js';
import { StoreMismatchError } from '../services/storeSettings.js';
import { isDiskFull } from '../errors.js';
import { RestoreError } from '../backup/restore.js';
import { SnapshotError } from '../backup/snapshotCopy.js';

const USAGE = `Usage:
  folio account create [--email E] [--plan P] [--json]   create an account and print its key
  folio account list [--json]                           list accounts
  folio account set-plan <account_id> <plan>            change an account's plan; its blogs are re-rendered
  folio account keys <account_id> [--json]              list every active key of the account: its account keys
                                                        and its blog-bound keys (marked with their blog); never the keys
  folio account create-key <account_id> [--name N] [--json]
                                                        make a new account key (scopes *) and print it once
  folio account revoke-key <key_id> [--force]           revoke a key of any account; it is refused from the next
                                                        request on. The account's last account key needs --force
  folio site rebuild <blog-slug> | --all                re-render every page, feed and the search index (of every blog)
  folio site verify <blog-slug>                         list objects that differ from the database
  folio site migrate-store [--no-copy]                  move this data dir to the store FOLIO_STORAGE/FOLIO_S3_* name: copy
                                                        every object from the recorded store, then record the new one
  folio search reindex <blog-slug>                      rebuild only the blog's search index
  folio backup <file>                                   write a consistent snapshot of the database, also while the
                                                        server runs (gzip-compressed when <file> ends in .gz)
  folio restore <file | _backups/key>                   make a backup (a file, or a key of the site store) the database
                                                        of an empty FOLIO_DATA_DIR; then start and run site rebuild --all
  folio import <file> --account <account_id>           make the blogs and posts of an export (GET /v1/account/export)
                                                        blogs of the account, and publish them
  folio mcp                                             an MCP server on stdio for AI assistants, acting through the API
                                                        of FOLIO_API_URL (default http://127.0.0.1:3000) with FOLIO_API_KEY
  folio push <dir> --blog <slug-or-id> [--dry-run] [--delete-missing] [--verbose]
                                                        make the blog's posts what the folder's *.md files (YAML front
                                                        matter) say; a second push sends nothing. Through the API, as mcp
  folio pull <dir> --blog <slug-or-id>                  write every post of the blog into the folder as <slug>.md
Plans: ${PLANS.join(', ')}
Errors are one line on stderr; FOLIO_DEBUG=1 or --debug adds the stack of an unexpected one.`;

export interface CliOptions {
  /** The environment to read the configuration from (default: process.env). */
  env?: Record<string, string | undefined>;
  /** SQLite busy timeout (default 5 s); tests of a locked database shorten it. */
  busyTimeoutMs?: number;
}

function accountsService(config: Config): AccountsService {
  const db = openDatabase(databaseFile(config));
  return new AccountsService(db, new AccountsRepo(db), new ApiKeysRepo(db), new BlogsRepo(db), new JobsRepo(db), systemClock);
}

function accountCommand(config: Config, args: string[]): void {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'create': {
      const { values } = parseArgs({ args: rest, options: { email: { type: 'string' }, plan: { type: 'string' }, json: { type: 'boolean' } }, strict: true });
      const plan = values.plan ?? 'free';
      if (!isPlan(plan)) throw new UsageError(`unknown plan "${plan}"; expected one of ${PLANS.join(', ')}`);
      const { account, apiKey } = accountsService(config).create({ plan, ...(values.email ? { email: values.email } : {}) });
      if (values.json) {
        process.stdout.write(`${JSON.stringify({ account_id: account.id, plan: account.plan, api_key: apiKey })}\n`);
      } else {
        process.stdout.write(`Created account ${account.id} on the ${account.plan} plan.\nAPI key (shown once, store it now): ${apiKey}\n`);
      }
      return;
    }
    case 'list': {
      const { values } = parseArgs({ args: rest, options: { json: { type: 'boolean' } }, strict: true });
      const accounts = accountsService(config).list();
      if (values.json) {
        process.stdout.write(`${JSON.stringify(accounts.map((a) => ({ account_id: a.id, email: a.email, plan: a.plan, created_at: a.createdAt })))}\n`);
      } else if (accounts.length === 0) {
        process.stdout.write('No accounts.\n');
      } else {
        for (const a of accounts) process.stdout.write(`${a.id}  ${a.plan.padEnd(10)}  ${a.createdAt}  ${a.email ?? ''}\n`);
      }
      return;
    }
    case 'set-plan': {
      const { positionals } = parseArgs({ args: rest, allowPositionals: true, strict: true });
      const [accountId, plan] = positionals;
      if (!accountId || !plan || positionals.length !== 2) throw new UsageError('set-plan takes <account_id> <plan>');
      if (!isPlan(plan)) throw new UsageError(`unknown plan "${plan}"; expected one of ${PLANS.join(', ')}`);
      const change = accountsService(config).setPlan(accountId, plan);
      if (!change) throw new UsageError(`no account with id ${accountId}`);
      if (change.previous === plan) {
        process.stdout.write(`Account ${accountId} is already on the ${plan} plan; nothing changed.\n`);
        return;
      }
      // The re-render jobs are recorded with the change; this process does not render (see README).
      const blogs = change.jobIds.length;
      process.stdout.write(
        `Account ${accountId} is now on the ${plan} plan (was ${change.previous}).\n` +
          (blogs === 0
            ? 'It has no blogs to re-render.\n'
            : `${blogs} blog${blogs === 1 ? '' : 's'} will be re-rendered by the running server, or at its next start.\n`),
      );
      return;
    }
    case 'keys':
    case 'create-key':
    case 'revoke-key':
      accountKeyCommand(config, sub, rest);
      return;
    default:
      throw new UsageError(sub ? `unknown command "account ${sub}"` : 'missing account command');
  }
}

/** `folio account keys | create-key | revoke-key`: the operator's view of an account's keys. */
function accountKeyCommand(config: Config, sub: 'keys' | 'create-key' | 'revoke-key', rest: string[]): void {
  const db = openDatabase(databaseFile(config));
  try {
    const accounts = new AccountsService(db, new AccountsRepo(db), new ApiKeysRepo(db), new BlogsRepo(db), new JobsRepo(db), systemClock);
    const out = (line: string) => process.stdout.write(`${line}\n`);
    if (sub === 'keys') {
      const { values, positionals } = parseArgs({ args: rest, options: { json: { type: 'boolean' } }, allowPositionals: true, strict: true });
      const [accountId] = positionals;
      if (!accountId || positionals.length !== 1) throw new UsageError('keys takes <account_id>');
      const entries = accounts.listKeys(accountId);
      if (!entries) throw new CommandFailed(`no account with id ${accountId}`, 2);
      if (values.json) {
        const rows = entries.map(({ key, blogSlug }) => ({
          id: key.id,
          name: key.name,
          key_prefix: key.keyPrefix,
          scopes: key.scopes,
          blog_id: key.blogId,
          blog_slug: blogSlug,
          last_used_at: key.lastUsedAt,
          created_at: key.createdAt,
        }));
        out(JSON.stringify(rows));
      } else if (entries.length === 0) {
        out(`Account ${accountId} has no active keys; make one with: folio account create-key ${accountId}`);
      } else {
        for (const { key, blogSlug } of entries) {
          const bound = key.blogId === null ? 'account' : `blog ${blogSlug ?? key.blogId}`;
          out(`${key.id}  ${key.keyPrefix}  ${bound.padEnd(20)}  ${key.scopes.join(',').padEnd(12)}  used ${(key.lastUsedAt ?? 'never').padEnd(24)}  created ${key.createdAt}  ${key.name}`);
        }
      }
      return;
    }
    if (sub === 'create-key') {
      const { values, positionals } = parseArgs({ args: rest, options: { name: { type: 'string' }, json: { type: 'boolean' } }, allowPositionals: true, strict: true });
      const [accountId] = positionals;
      if (!accountId || positionals.length !== 1) throw new UsageError('create-key takes <account_id>');
      // The API's limits for a key name (api.md §2.3).
      if (values.name !== undefined && (!/\S/.test(values.name) || Array.from(values.name).length > 100)) {
        throw new UsageError('--name must be 1-100 characters and not blank');
      }
      const created = accounts.createKey(accountId, values.name);
      if (!created) throw new CommandFailed(`no account with id ${accountId}`, 2);
      const { key, secret } = created;
      if (values.json) {
        out(JSON.stringify({ key_id: key.id, account_id: accountId, name: key.name, prefix: key.keyPrefix, api_key: secret }));
      } else {
        out(`Created account key ${key.id} ("${key.name}") for account ${accountId}.\nAPI key (shown once, store it now): ${secret}`);
      }
      return;
    }
    const { values, positionals } = parseArgs({ args: rest, options: { force: { type: 'boolean' } }, allowPositionals: true, strict: true });
    const [keyId] = positionals;
    if (!keyId || positionals.length !== 1) throw new UsageError('revoke-key takes <key_id>');
    const result = accounts.revokeKey(keyId, { force: values.force === true });
    if (result.outcome === 'not_found') throw new CommandFailed(`no active key with id ${keyId}`, 2);
    const { key } = result;
    if (result.outcome === 'last_account_key') {
      throw new CommandFailed(
        `key ${key.id} is the last account key of account ${key.accountId}; nothing was revoked.\n` +
          `Make a new one first (folio account create-key ${key.accountId}), then revoke this one; or pass --force to revoke it anyway.`,
        1,
      );
    }
    const bound = key.blogId === null ? 'account key' : `key of blog ${key.blogId}`;
    out(`Revoked ${bound} ${key.id} (${key.keyPrefix}…) of account ${key.accountId}; it is refused from the next request on.`);
  } finally {
    db.close();
  }
}

async function siteCommand(config: Config, group: 'site' | 'search', args: string[], options: CliOptions): Promise<number> {
  const [sub, slug, ...extra] = args;
  if (group === 'site' && sub === 'rebuild' && slug === '--all' && extra.length === 0) return rebuildAll(config, options);
  if (group === 'site' && sub === 'migrate-store') return migrateStoreCommand(config, args.slice(1));
  if (!slug || extra.length > 0) throw new UsageError(`${group} ${sub ?? '<command>'} takes <blog-slug>`);
  const valid = group === 'site' ? ['rebuild', 'verify'] : ['reindex'];
  if (!sub || !valid.includes(sub)) throw new UsageError(`unknown command "${group} ${sub ?? ''}"`);
  // Renders with the public URL settings the server recorded, never this shell's defaults.
  const folio = compose({ config, logger: createLogger('warn'), publicUrls: 'cli', busyTimeoutMs: options.busyTimeoutMs ?? CLI_BUSY_TIMEOUT_MS });
  try {
    const blog = folio.repos.blogs.findBySlug(slug);
    if (!blog) throw new CommandError(`no blog with slug "${slug}"`);
    if (group === 'search') {
      const started = performance.now();
      const count = await folio.publisher.reindex(blog);
      process.stdout.write(`Reindexed ${count} published posts of ${slug} in ${((performance.now() - started) / 1000).toFixed(1)} s.\n`);
      return 0;
    }
    if (sub === 'rebuild') {
      const started = performance.now();
      const result = await folio.publisher.rebuild(blog, { force: true, withSearch: true, onProgress: progressBar(`rebuilding ${slug}`) });
      process.stdout.write(
        `Rebuilt ${slug}: ${result.written} objects written, ${result.deleted} stale removed, search index rebuilt, in ${((performance.now() - started) / 1000).toFixed(1)} s.\n`,
      );
      return 0;
    }
    const report = await folio.publisher.verify(blog);
    const problems = report.missing.length + report.different.length + report.extra.length;
    process.stdout.write(`Checked ${report.checked} objects of ${slug}: ${problems === 0 ? 'the store matches the database.' : `${problems} differ.`}\n`);
    for (const key of report.missing) process.stdout.write(`missing    ${key}\n`);
    for (const key of report.different) process.stdout.write(`different  ${key}\n`);
    for (const key of report.extra) process.stdout.write(`extra      ${key}\n`);
    return problems === 0 ? 0 : 1;
  } finally {
    await folio.close();
  }
}

/** `folio site rebuild --all`: every blog's pages and search index from the database (after a restore). */
async function rebuildAll(config: Config, options: CliOptions): Promise<number> {
  const folio = compose({ config, logger: createLogger('warn'), publicUrls: 'cli', busyTimeoutMs: options.busyTimeoutMs ?? CLI_BUSY_TIMEOUT_MS });
  try {
    const started = performance.now();
    const blogs = folio.repos.blogs.listAll();
    let written = 0;
    for (const [i, blog] of blogs.entries()) {
      const result = await folio.publisher.rebuild(blog, { force: true, withSearch: true, onProgress: progressBar(`rebuilding ${blog.slug} (${i + 1}/${blogs.length})`) });
      written += result.written;
    }
    process.stdout.write(`Rebuilt ${blogs.length} blogs: ${written} objects written, search indexes rebuilt, in ${((performance.now() - started) / 1000).toFixed(1)} s.\n`);
    return 0;
  } finally {
    await folio.close();
  }
}

export async function runCli(argv: string[], options: CliOptions = {}): Promise<number> {
  const debug = argv.includes('--debug') || debugRequested(options.env);
  let dataDir: string | null = null;
  const [command, ...rest] = argv.filter((arg) => arg !== '--debug');
  try {
    // Commands that act through the HTTP API of a (possibly remote) Folio need no data dir.
    const env = options.env ?? process.env;
    if (command === 'mcp') return await mcpCommand(env);
    if (command === 'push' || command === 'pull') return await syncCommand(command, rest, env);
    const config = loadConfig(options.env);
    dataDir = config.dataDir;
    switch (command) {
      case 'account':
        accountCommand(config, rest);
        return 0;
      case 'site':
      case 'search':
        return await siteCommand(config, command, rest, options);
      case 'backup':
        return await backupCommand(config, rest);
      case 'restore':
        return await restoreCommand(config, rest);
      case 'import':
        return await importCommand(config, rest, options.busyTimeoutMs);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        process.stdout.write(`${USAGE}\n`);
        return command === undefined ? 1 : 0;
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (err) {
    return reportFailure(err, debug, dataDir);
  }
}

/** The error and the errors it wraps (`cause`), outermost first. */
function causes(err: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e = err; e !== undefined && chain.length < 10; e = e instanceof Error ? e.cause : undefined) chain.push(e);
  return chain;
}

const isBusy = (e: unknown): boolean => typeof e === 'object' && e !== null && 'code' in e && String(e.code).startsWith('SQLITE_BUSY');

/**
 * Every failure is one line on stderr that says what to do; a stack trace only for a bug, and
 * only on request. Exit codes: 2 the command did not run or failed (1 stays `site verify`'s
 * "differences found"), 75 (EX_TEMPFAIL) the database was busy: try again.
 */
function reportFailure(err: unknown, debug: boolean, dataDir: string | null): number {
  const fail = (message: string, code: number, extra = ''): number => {
    process.stderr.write(`folio: ${message}\n${extra}`);
    return code;
  };
  if (err instanceof UsageError) return fail(err.message, 2, `${USAGE}\n`);
  if (err instanceof CommandFailed) return fail(err.message, err.exitCode);
  if (err instanceof DatabaseOpenError) return fail(err.message, err.busy ? 75 : 2);
  if (err instanceof ConfigError || err instanceof CommandError || err instanceof PublicUrlConflictError || err instanceof StoreMismatchError || err instanceof RestoreError || err instanceof SnapshotError) return fail(err.message, 2);
  if (err instanceof TypeError && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS')) return fail(err.message, 2);
  if (err instanceof FolioApiError) return fail(err.status === 0 ? err.message : `the Folio API answered ${err.status} ${err.code}: ${err.message}`, 2);
  const chain = causes(err);
  if (chain.some(isBusy)) return fail('the database is busy (another folio process is writing); try again', 75);
  if (isDiskFull(err)) return fail(`the disk${dataDir === null ? '' : ` holding ${dataDir}`} is full; free some space, then run the command again`, 2);
  const purge = chain.find((e) => e instanceof CdnPurgeError);
  if (purge instanceof CdnPurgeError) return fail(`the store is up to date, but the CDN purge failed: ${purge.message}; run the command again once the CDN answers`, 2);
  const storage = chain.find((e) => e instanceof StorageError);
  if (storage instanceof StorageError) return fail(`the site store failed: ${storage.message}`, 2, debug ? `${storage.stack ?? ''}\n` : '');
  const message = err instanceof Error ? err.message : String(err);
  if (debug) return fail(`unexpected error: ${message}`, 2, `${err instanceof Error ? (err.stack ?? '') : ''}\n`);
  return fail(`unexpected error: ${message} (FOLIO_DEBUG=1 or --debug prints the stack)`, 2);
}
