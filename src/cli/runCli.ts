/**
 * `folio` command line: dispatch only (commandTable.ts lists the commands, invocation.ts parses
 * them); the work is done by the same services the API uses, on the same FOLIO_DATA_DIR (SQLite
 * in WAL mode, so a running server is fine).
 */
import '../runtime/threadPool.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../lib/paths.js';
import { ConfigError, debugRequested, loadConfig, type Config } from '../config/config.js';
import { isDiskFull, StorageError } from '../domain/errors.js';
import { CommandError, CommandFailed, UsageError } from './cliErrors.js';
import { commandHelp, commandName, findCommand, groupCommands, groupHelp, HELP_FLAGS, usage, type CommandName } from './commandTable.js';
import { asksForHelp, parseInvocation, type Invocation } from './invocation.js';

export interface CliOptions {
  /** The environment to read the configuration from (default: process.env). */
  env?: Record<string, string | undefined>;
  /** SQLite busy timeout (default 5 s); tests of a locked database shorten it. */
  busyTimeoutMs?: number;
}

type Handler = (run: {
  config: () => Config;
  invocation: Invocation;
  rest: string[];
  env: Record<string, string | undefined>;
  options: CliOptions;
}) => number | Promise<number>;

/**
 * What each command of the table does; the type makes a row without a handler a compile error.
 * Each loads its module when it runs: help, usage errors and the commands that only talk to the
 * HTTP API (push, pull, mcp, analytics) never load the database, the renderer or sharp.
 */
const HANDLERS: Record<CommandName, Handler> = {
  'account create': async ({ config, invocation }) => (await import('./accountCommands.js')).accountCreate(config(), invocation),
  'account list': async ({ config, invocation }) => (await import('./accountCommands.js')).accountList(config(), invocation),
  'account set-plan': async ({ config, invocation }) => (await import('./accountCommands.js')).accountSetPlan(config(), invocation),
  'account keys': async ({ config, invocation }) => (await import('./accountCommands.js')).accountKeys(config(), invocation),
  'account create-key': async ({ config, invocation }) => (await import('./accountCommands.js')).accountCreateKey(config(), invocation),
  'account revoke-key': async ({ config, invocation }) => (await import('./accountCommands.js')).accountRevokeKey(config(), invocation),
  'account delete': async ({ config, invocation }) => (await import('./accountCommands.js')).accountDelete(config(), invocation),
  'account login-link': async ({ config, invocation }) => (await import('./signInCommands.js')).accountLoginLink(config(), invocation),
  'account set-password': async ({ config, invocation }) => (await import('./signInCommands.js')).accountSetPassword(config(), invocation),
  'site rebuild': async ({ config, invocation, options }) => {
    const [slug] = invocation.positionals;
    const all = invocation.values.boolean('all');
    if (all === (slug !== undefined)) throw new UsageError('site rebuild takes <blog-slug> or --all', commandHelp(findCommand(['site', 'rebuild'])!.spec));
    const { rebuildAll, siteCommand } = await import('./siteCommands.js');
    return all ? rebuildAll(config(), options) : siteCommand(config(), 'site', ['rebuild', slug!], options);
  },
  'site verify': async ({ config, invocation, options }) =>
    (await import('./siteCommands.js')).siteCommand(config(), 'site', ['verify', ...invocation.positionals], options),
  // storeCommands.ts parses its own option, the same the table declares (checked strictly above).
  'site migrate-store': async ({ config, rest }) => (await import('./storeCommands.js')).migrateStoreCommand(config(), rest),
  'search reindex': async ({ config, invocation, options }) =>
    (await import('./siteCommands.js')).siteCommand(config(), 'search', ['reindex', ...invocation.positionals], options),
  // backupCommands.ts parses its own options, the same the table declares (checked strictly above).
  backup: async ({ config, rest }) => (await import('./backupCommands.js')).backupCommand(config(), rest),
  'backup list': async ({ config, rest }) => (await import('./backupCommands.js')).backupCommand(config(), ['list', ...rest]),
  restore: async ({ config, invocation }) => (await import('./backupCommands.js')).restoreCommand(config(), [...invocation.positionals]),
  'database copy': async ({ config, invocation }) => (await import('./databaseCommands.js')).databaseCopyCommand(config(), invocation),
  // These parse their own options, the same the table declares (checked strictly above).
  import: async ({ config, rest, options }) => (await import('./importCommand.js')).importCommand(config(), rest, options.busyTimeoutMs),
  // Commands that act through the HTTP API of a (possibly remote) Folio need no data dir.
  mcp: async ({ env }) => (await import('./mcpCommand.js')).mcpCommand(env),
  push: async ({ rest, env }) => (await import('./syncCommands.js')).syncCommand('push', rest, env),
  pull: async ({ rest, env }) => (await import('./syncCommands.js')).syncCommand('pull', rest, env),
  analytics: async ({ invocation, env }) => (await import('./analyticsCommand.js')).analyticsCommand(invocation, env),
};

/**
 * `folio help [command…]`, `folio --help`: the help of the command or group named, of every
 * command when none is named; a name that is no command is a usage error, as `folio nosuch --help` is.
 */
function helpFor(words: string[]): string {
  if (words.length === 0) return `${usage()}\n`;
  const found = findCommand(words);
  if (found && found.rest.length === 0) return commandHelp(found.spec);
  if (words.length === 1 && groupCommands(words[0]).length > 0) return groupHelp(words[0]!);
  throw unknownCommand(words);
}

/** One line and where to look: the whole usage on stderr buries the mistake. */
function unknownCommand(words: readonly string[]): UsageError {
  const [first, second] = words;
  const group = groupCommands(first).length > 0 && second !== undefined;
  const name = group ? `${first} ${second}` : first;
  return new UsageError(`unknown command "${name}"; see folio ${group ? `${first} ` : ''}--help`, '');
}

/** `folio --version`: the version of the package the command runs from. */
function version(): string {
  const manifest = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version?: unknown };
  return `folio ${String(manifest.version)}\n`;
}

export async function runCli(argv: string[], options: CliOptions = {}): Promise<number> {
  const debug = argv.includes('--debug') || debugRequested(options.env);
  const args = argv.filter((arg) => arg !== '--debug');
  const [first, second] = args;
  // Named in a full-disk message once the command has read its configuration.
  let dataDir: string | null = null;
  try {
    if (first === undefined) {
      process.stdout.write(`${usage()}\n`);
      return 1;
    }
    if (first === 'help' || HELP_FLAGS.includes(first)) {
      process.stdout.write(helpFor(args.slice(1)));
      return 0;
    }
    if (first === '--version' && args.length === 1) {
      process.stdout.write(version());
      return 0;
    }
    const found = findCommand(args);
    if (!found) {
      if (groupCommands(first).length === 0) throw unknownCommand(args);
      if (second !== undefined && HELP_FLAGS.includes(second)) {
        process.stdout.write(groupHelp(first));
        return 0;
      }
      if (second === undefined) throw new UsageError(`missing ${first} command`, groupHelp(first));
      throw unknownCommand(args);
    }
    // Before anything else, the configuration included: help never acts and needs no setup.
    if (asksForHelp(found.rest)) {
      process.stdout.write(commandHelp(found.spec));
      return 0;
    }
    const invocation = parseInvocation(found.spec, found.rest);
    const env = options.env ?? process.env;
    const config = () => {
      const loaded = loadConfig(options.env);
      dataDir = loaded.dataDir;
      return loaded;
    };
    return await HANDLERS[commandName(found.spec)]({ config, invocation, rest: found.rest, env, options });
  } catch (err) {
    return await reportFailure(err, debug, dataDir);
  }
}

/**
 * The error classes reportFailure tells apart, loaded once a command has failed: the module that
 * threw one has loaded it already, and importing it again gives the same class.
 */
async function failureClasses() {
  const [{ PublicUrlConflictError }, { CdnPurgeError }, { DatabaseOpenError }, { StoreMismatchError }, { RestoreError }, { SnapshotError }] = await Promise.all(
    [
      import('../services/publicUrlSettings.js'),
      import('../cdn/cdnPurger.js'),
      import('../db/databaseFailure.js'),
      import('../services/storeSettings.js'),
      import('../backup/restore.js'),
      import('../backup/snapshotCopy.js'),
    ],
  );
  return { PublicUrlConflictError, CdnPurgeError, DatabaseOpenError, StoreMismatchError, RestoreError, SnapshotError };
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
async function reportFailure(err: unknown, debug: boolean, dataDir: string | null): Promise<number> {
  const fail = (message: string, code: number, extra = ''): number => {
    process.stderr.write(`folio: ${message}\n${extra}`);
    return code;
  };
  if (err instanceof UsageError) return fail(err.message, 2, err.usage ?? `${usage()}\n`);
  if (err instanceof CommandFailed) return fail(err.message, err.exitCode);
  if (err instanceof ConfigError || err instanceof CommandError) return fail(err.message, 2);
  if (err instanceof TypeError && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS')) return fail(err.message, 2);
  // The API client is small, and the commands that throw its errors loaded it already.
  const { FolioApiError } = await import('../client/folioClient.js');
  if (err instanceof FolioApiError) return fail(err.status === 0 ? err.message : `the Folio API answered ${err.status} ${err.code}: ${err.message}`, 2);
  // The rest come from the data dir's modules, loaded by the commands that throw them.
  const { PublicUrlConflictError, CdnPurgeError, DatabaseOpenError, StoreMismatchError, RestoreError, SnapshotError } = await failureClasses();
  if (err instanceof DatabaseOpenError) return fail(err.message, err.busy ? 75 : 2);
  if (err instanceof PublicUrlConflictError || err instanceof StoreMismatchError || err instanceof RestoreError || err instanceof SnapshotError)
    return fail(err.message, 2);
  const chain = causes(err);
  if (chain.some(isBusy)) return fail('the database is busy (another folio process is writing); try again', 75);
  if (isDiskFull(err)) return fail(`the disk${dataDir === null ? '' : ` holding ${dataDir}`} is full; free some space, then run the command again`, 2);
  const purge = chain.find((e) => e instanceof CdnPurgeError);
  if (purge instanceof CdnPurgeError)
    return fail(`the store is up to date, but the CDN purge failed: ${purge.message}; run the command again once the CDN answers`, 2);
  const storage = chain.find((e) => e instanceof StorageError);
  if (storage instanceof StorageError) return fail(`the site store failed: ${storage.message}`, 2, debug ? `${storage.stack ?? ''}\n` : '');
  const message = err instanceof Error ? err.message : String(err);
  if (debug) return fail(`unexpected error: ${message}`, 2, `${err instanceof Error ? (err.stack ?? '') : ''}\n`);
  return fail(`unexpected error: ${message} (FOLIO_DEBUG=1 or --debug prints the stack)`, 2);
}
