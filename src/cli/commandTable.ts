/**
 * Every `folio` command: its words, arguments, options and help. runCli.ts parses each command
 * line strictly against its row (node's util.parseArgs), answers `--help` from it before anything
 * acts, and dispatches to the handler named like the row; the help tests walk this table, so a new
 * command cannot miss them.
 */
import type { ParseArgsConfig } from 'node:util';
import { PLANS } from '../domain/plans.js';

interface OptionSpec {
  type: 'string' | 'boolean';
  /** The value's placeholder in the usage line (string options). */
  value?: string;
  help: string;
}

export interface CommandSpec {
  /** The words after `folio`: `['account', 'create']`. */
  readonly path: readonly string[];
  /** What follows the words in the usage line. */
  readonly args: string;
  /** What the command does (one or more lines). */
  readonly summary: string;
  readonly options: Readonly<Record<string, OptionSpec>>;
  /** How many positional arguments the command takes. */
  readonly positionals: { readonly min: number; readonly max: number };
}

const json: OptionSpec = { type: 'boolean', help: 'print JSON instead of text' };

export const COMMANDS = [
  {
    path: ['account', 'create'],
    args: '[--email E] [--plan P] [--json]',
    summary: 'create an account and print its account key (once); the plan is printed too',
    options: {
      email: { type: 'string', value: 'E', help: "the account's contact address" },
      plan: { type: 'string', value: 'P', help: `the plan: ${PLANS.join(', ')} (default: FOLIO_DEFAULT_PLAN, else enterprise)` },
      json,
    },
    positionals: { min: 0, max: 0 },
  },
  { path: ['account', 'list'], args: '[--json]', summary: 'list accounts', options: { json }, positionals: { min: 0, max: 0 } },
  {
    path: ['account', 'set-plan'],
    args: '<account_id> <plan>',
    summary: `change an account's plan (${PLANS.join(', ')}); its blogs are re-rendered`,
    options: {},
    positionals: { min: 2, max: 2 },
  },
  {
    path: ['account', 'keys'],
    args: '<account_id> [--json]',
    summary: 'list every active key of the account: its account keys and its blog-bound keys\n(marked with their blog); never the keys themselves',
    options: { json },
    positionals: { min: 1, max: 1 },
  },
  {
    path: ['account', 'create-key'],
    args: '<account_id> [--name N] [--expires 30d|90d|1y|<date-time>] [--json]',
    summary: 'make a new account key (scopes *) and print it once',
    options: {
      name: { type: 'string', value: 'N', help: 'the key\'s name, 1-100 characters (default "Account key")' },
      expires: {
        type: 'string',
        value: 'WHEN',
        help: 'when the key stops working: in 30d, 90d, 1y (any number of days\nor years, at most ten years), or at an ISO 8601 date-time with a\ntime zone (default: never)',
      },
      json,
    },
    positionals: { min: 1, max: 1 },
  },
  {
    path: ['account', 'revoke-key'],
    args: '<key_id> [--force]',
    summary: "revoke a key of any account; it is refused from the next request on. The account's\nlast account key needs --force",
    options: { force: { type: 'boolean', help: "revoke the account's last account key too" } },
    positionals: { min: 1, max: 1 },
  },
  {
    path: ['account', 'delete'],
    args: '<account_id>',
    summary:
      'delete an account: its keys are refused and its blogs gone at once; the running\nserver removes their sites. Backups keep the data until they rotate out',
    options: {},
    positionals: { min: 1, max: 1 },
  },
  {
    path: ['account', 'login-link'],
    args: '<account_id> [--json]',
    summary: 'print a one-time link that signs a browser in to the dashboard as the account\n(works once, for 15 minutes)',
    options: { json },
    positionals: { min: 1, max: 1 },
  },
  {
    path: ['account', 'set-password'],
    args: '<account_id> [--email E]',
    summary:
      "set the account's dashboard password, read from stdin or typed at a prompt (never an\nargument: it would stay in shell history); every session of the account ends",
    options: { email: { type: 'string', value: 'E', help: 'the email to sign in with (required when the account has none)' } },
    positionals: { min: 1, max: 1 },
  },
  {
    path: ['site', 'rebuild'],
    args: '<blog-slug> | --all',
    summary: 're-render every page, feed and the search index (of every blog)',
    options: { all: { type: 'boolean', help: 'rebuild every blog' } },
    positionals: { min: 0, max: 1 },
  },
  { path: ['site', 'verify'], args: '<blog-slug>', summary: 'list objects that differ from the database', options: {}, positionals: { min: 1, max: 1 } },
  {
    path: ['site', 'migrate-store'],
    args: '[--no-copy]',
    summary:
      'move this data dir to the store FOLIO_STORAGE/FOLIO_S3_* name: copy every object from the\nrecorded store, check the new store lists them all, then record it (stop the server first)',
    options: {
      'no-copy': {
        type: 'boolean',
        help: 'only record the new store (its objects were copied by hand, or the old store is gone),\nthen name the image objects it lacks (exit 1)',
      },
    },
    positionals: { min: 0, max: 0 },
  },
  { path: ['search', 'reindex'], args: '<blog-slug>', summary: "rebuild only the blog's search index", options: {}, positionals: { min: 1, max: 1 } },
  {
    path: ['backup'],
    args: '<file> [--no-media]',
    summary:
      'write a consistent snapshot of the database and the uploaded images, also while the\nserver runs (gzip-compressed when <file> ends in .gz); on PostgreSQL the same kind of\nfile, an SQLite copy of the database',
    options: { 'no-media': { type: 'boolean', help: 'leave the images out (they stay in the store; restore checks them)' } },
    positionals: { min: 1, max: 1 },
  },
  {
    path: ['backup', 'list'],
    args: '[--json]',
    summary: 'list the backups in the site store (FOLIO_BACKUP_INTERVAL): key, time, size',
    options: { json },
    positionals: { min: 0, max: 0 },
  },
  {
    path: ['restore'],
    args: '<file | _backups/key>',
    summary:
      'make a backup (a file, or a key of the site store: see folio backup list) the database\nof an empty FOLIO_DATA_DIR (or of the empty PostgreSQL database FOLIO_DATABASE_URL names)\nand put its images into the store; then start and run site rebuild --all',
    options: {},
    positionals: { min: 1, max: 1 },
  },
  {
    path: ['database', 'copy'],
    args: '--to <postgres-url> [--json]',
    summary:
      "copy this data dir's SQLite database into an empty PostgreSQL database (its migrations\napplied first), then check each table's row count; the store is left as it is (stop the\nserver first)",
    options: { to: { type: 'string', value: '<postgres-url>', help: 'the PostgreSQL database: postgres://user:password@host:5432/db (required)' }, json },
    positionals: { min: 0, max: 0 },
  },
  {
    path: ['import'],
    args: '<file> --account <account_id>',
    summary: 'make the blogs and posts of an export (GET /v1/account/export) blogs of the account,\nand publish them',
    options: { account: { type: 'string', value: '<account_id>', help: 'the account that receives the blogs (required)' } },
    positionals: { min: 1, max: 1 },
  },
  {
    path: ['mcp'],
    args: '',
    summary: 'an MCP server on stdio for AI assistants, acting through the API of FOLIO_API_URL\n(default http://127.0.0.1:3000) with FOLIO_API_KEY',
    options: {},
    positionals: { min: 0, max: 0 },
  },
  {
    path: ['push'],
    args: '<dir> --blog <slug-or-id> [--dry-run] [--delete-missing] [--verbose]',
    summary: "make the blog's posts what the folder's *.md files (YAML front matter) say; a second\npush sends nothing. Through the API, as mcp",
    options: {
      blog: { type: 'string', value: '<slug-or-id>', help: 'the blog (default FOLIO_BLOG_ID)' },
      'dry-run': { type: 'boolean', help: 'print what would change and send nothing' },
      'delete-missing': { type: 'boolean', help: 'delete the posts of the blog that have no file' },
      verbose: { type: 'boolean', help: 'list every change' },
    },
    positionals: { min: 1, max: 1 },
  },
  {
    path: ['analytics'],
    args: '[<post-slug>] --blog <slug-or-id> [--json]',
    summary: "the blog's (or one post's) views, daily visitors and referrers of the last 7 and 30\ndays, through the API, as push (Starter plan or higher)",
    options: { blog: { type: 'string', value: '<slug-or-id>', help: 'the blog (default FOLIO_BLOG_ID)' }, json },
    positionals: { min: 0, max: 1 },
  },
  {
    path: ['pull'],
    args: '<dir> --blog <slug-or-id>',
    summary: 'write every post of the blog into the folder as <slug>.md',
    options: { blog: { type: 'string', value: '<slug-or-id>', help: 'the blog (default FOLIO_BLOG_ID)' } },
    positionals: { min: 1, max: 1 },
  },
] as const satisfies readonly CommandSpec[];

export type CommandName = JoinWords<(typeof COMMANDS)[number]['path']>;
type JoinWords<P extends readonly string[]> = P extends readonly [infer A extends string]
  ? A
  : P extends readonly [infer A extends string, ...infer R extends string[]]
    ? `${A} ${JoinWords<R>}`
    : never;

/** Accepted by every command: help, and the stack of an unexpected error. */
export const HELP_FLAGS = ['--help', '-h'];

export function commandName(spec: CommandSpec): CommandName {
  return spec.path.join(' ') as CommandName;
}

/** The parseArgs options of a command (`help` and `value` are ours). */
export function parseOptions(spec: CommandSpec): NonNullable<ParseArgsConfig['options']> {
  return Object.fromEntries(Object.entries(spec.options).map(([name, option]) => [name, { type: option.type }]));
}

/** The command a command line names (its longest matching words) and the arguments after them. */
export function findCommand(argv: readonly string[]): { spec: CommandSpec; rest: string[] } | null {
  let found: CommandSpec | null = null;
  for (const spec of COMMANDS as readonly CommandSpec[]) {
    if (spec.path.every((word, i) => argv[i] === word) && (!found || spec.path.length > found.path.length)) found = spec;
  }
  return found ? { spec: found, rest: argv.slice(found.path.length) } : null;
}

/** The commands under a first word (`account`), when it is a group rather than a command. */
export function groupCommands(word: string | undefined): CommandSpec[] {
  return (COMMANDS as readonly CommandSpec[]).filter((spec) => spec.path.length > 1 && spec.path[0] === word);
}

function usageLine(spec: CommandSpec): string {
  return `folio ${spec.path.join(' ')}${spec.args ? ` ${spec.args}` : ''}`;
}

const indent = (text: string, by: string): string =>
  text
    .split('\n')
    .map((line) => `${by}${line}`)
    .join('\n');

/** `folio <command> --help`. */
export function commandHelp(spec: CommandSpec): string {
  const options = Object.entries(spec.options).map(([name, o]) => {
    const flag = `--${name}${o.type === 'string' ? ` ${o.value ?? 'V'}` : ''}`;
    return `  ${flag.padEnd(28)}${o.help}`;
  });
  options.push(`  ${'--help, -h'.padEnd(28)}print this help and do nothing else`);
  // A command that is also a group (`backup`, `backup list`) names its subcommands too.
  const under = (COMMANDS as readonly CommandSpec[]).filter(
    (other) => other.path.length > spec.path.length && spec.path.every((word, i) => other.path[i] === word),
  );
  const more = under.length === 0 ? '' : `\nAlso:\n${under.map((other) => `  ${usageLine(other)}\n${indent(other.summary, '      ')}`).join('\n')}\n`;
  return `Usage: ${usageLine(spec)}\n\n${indent(spec.summary, '  ')}\n\nOptions:\n${options.join('\n')}\n${more}`;
}

/** `folio account --help`: the commands of a group. */
export function groupHelp(word: string): string {
  const lines = groupCommands(word).map((spec) => `  ${usageLine(spec)}\n${indent(spec.summary, '      ')}`);
  return `Usage: folio ${word} <command>\n\n${lines.join('\n')}\n\n\`folio ${word} <command> --help\` describes one command.\n`;
}

/** `folio --help`: every command. */
export function usage(): string {
  const lines = (COMMANDS as readonly CommandSpec[]).map((spec) => `  ${usageLine(spec)}\n${indent(spec.summary, '      ')}`);
  return (
    `Usage:\n${lines.join('\n')}\n` +
    `Plans: ${PLANS.join(', ')}\n` +
    '`folio <command> --help` describes one command; `folio --version` prints the version. Errors are one line on\n' +
    'stderr; FOLIO_DEBUG=1 or --debug adds the stack of an unexpected one.'
  );
}
