/**
 * Issue 27 B6: `folio <command> --help` answers for every command and group of the command
 * table and never acts (`folio backup --help` used to write a snapshot to a file named
 * `--help`); an option a command does not have is one line and exit 2, never an argument.
 * The table's commands run in this process (a spawned `folio` costs seconds on a loaded machine);
 * the reported case runs the real bin/folio.js in an empty working folder as well.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS, type CommandSpec } from '../../src/cli/commandTable.js';
import { openDataSql, type DataSql } from '../support/dataSql.js';
import { freshDatabaseEnv } from '../support/freshDatabase.js';
import { runCliCaptured } from '../support/runCliCaptured.js';

const BIN = fileURLToPath(new URL('../../bin/folio.js', import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** In this process, as the spawned command would; files it would write land in process.cwd(). */
async function inProcess(...args: string[]): Promise<Run> {
  return runCliCaptured(args, env);
}

/** Files named like one of `args` in this process's working folder (where a relative path lands). */
function strayFiles(args: readonly string[]): string[] {
  return readdirSync(process.cwd()).filter((name) => args.includes(name));
}

let cwd: string;
let dataDir: string;
let env: Record<string, string>;
/** On the PostgreSQL pass, the test's connection to the data dir's database; null on SQLite. */
let database: DataSql | null = null;

function folio(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    // FOLIO_API_KEY would let mcp/push/pull act; the FOLIO_API_URL answers nothing (port 9).
    execFile(process.execPath, [BIN, ...args], { cwd, env: { ...env, PATH: process.env.PATH ?? '' }, timeout: 30_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

/**
 * Every file under the working folder and the data dir, with its size and time, and on
 * PostgreSQL every row of the database (on SQLite they are in its file): what a command left.
 */
async function snapshot(): Promise<string[]> {
  const list = (dir: string): string[] =>
    readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((name) => {
      const stat = statSync(join(dir, name));
      return `${join(dir, name)} ${stat.size} ${stat.mtimeMs}`;
    });
  return [...list(cwd), ...list(dataDir), ...(database ? await databaseRows(database) : [])].sort();
}

async function databaseRows({ sql }: DataSql): Promise<string[]> {
  const tables = await sql.all<{ name: string }>(
    "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
  );
  const rows: string[] = [];
  for (const { name } of tables) for (const row of await sql.all(`SELECT * FROM "${name}"`)) rows.push(`${name} ${JSON.stringify(row)}`);
  return rows;
}

const specs = COMMANDS as readonly CommandSpec[];
const groups = [...new Set(specs.filter((s) => s.path.length > 1).map((s) => s.path[0]!))];

beforeAll(async () => {
  cwd = mkdtempSync(join(tmpdir(), 'folio-help-cwd-'));
  dataDir = mkdtempSync(join(tmpdir(), 'folio-help-data-'));
  env = {
    FOLIO_DATA_DIR: dataDir,
    ...(await freshDatabaseEnv()),
    FOLIO_API_KEY: 'pk_live_not_a_real_key_0000000000000000',
    FOLIO_API_URL: 'http://127.0.0.1:9',
  };
  // A database, so a command that acted would have something to act on.
  const made = await runCliCaptured(['account', 'create', '--json'], env);
  expect(made.code, made.stderr).toBe(0);
  if (env.FOLIO_DATABASE_URL !== undefined) database = await openDataSql(env);
});

afterAll(async () => {
  await database?.close();
  rmSync(cwd, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

describe('folio <command> --help', () => {
  it('covers a command table with every command in it', () => {
    expect(specs.map((s) => s.path.join(' '))).toEqual(
      expect.arrayContaining(['backup', 'restore', 'import', 'account create', 'site rebuild', 'push', 'mcp']),
    );
  });

  it.each(specs.map((s) => [s.path.join(' '), s] as const))('folio %s --help and -h print its help, exit 0 and write nothing', async (_name, spec) => {
    const before = await snapshot();
    for (const flag of ['--help', '-h']) {
      // The flag after an argument, and beside an option the command does not have: still only help.
      for (const args of [
        [...spec.path, flag],
        [...spec.path, 'some-arg', flag, '--no-such-option'],
      ]) {
        const run = await inProcess(...args);
        expect(strayFiles(args)).toEqual([]);
        expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(0);
        expect(run.stderr).toBe('');
        expect(run.stdout).toMatch(new RegExp(`^Usage: folio ${spec.path.join(' ')}\\b`));
        for (const option of Object.keys(spec.options)) expect(run.stdout).toContain(`--${option}`);
      }
    }
    expect(await snapshot()).toEqual(before);
  });

  it.each(groups)('folio %s --help lists the commands of the group', async (group) => {
    const run = await inProcess(group, '--help');
    expect(run.code, run.stderr).toBe(0);
    for (const spec of specs.filter((s) => s.path[0] === group)) expect(run.stdout).toContain(`folio ${spec.path.join(' ')}`);
  });

  it('the real folio backup --help (the reported case) prints help and writes no file named --help', async () => {
    const before = await snapshot();
    const run = await folio('backup', '--help');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^Usage: folio backup <file>/);
    expect(await snapshot()).toEqual(before);
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('the real folio with an unknown option says so on one line, exit 2', async () => {
    const run = await folio('account', 'create', '--plna', 'free');
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('folio: unknown option --plna for folio account create; see folio account create --help\n');
  });

  it('folio help <command> is the same as folio <command> --help', async () => {
    const viaHelp = await inProcess('help', 'backup');
    const viaFlag = await inProcess('backup', '--help');
    expect(viaHelp).toEqual(viaFlag);
  });

  it('left the one account of the data dir alone', async () => {
    const run = await inProcess('account', 'list', '--json');
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toHaveLength(1);
  });

  it('folio -- after the command makes --help an argument again', async () => {
    const run = await inProcess('site', 'verify', '--', '--help');
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('folio: no blog with slug "--help"\n');
  });
});

describe('unknown options', () => {
  it.each(specs.map((s) => [s.path.join(' '), s] as const))(
    'folio %s --no-such-option is one line naming it, exit 2, and nothing written',
    async (name, spec) => {
      const before = await snapshot();
      const run = await inProcess(...spec.path, 'x', '--no-such-option');
      expect(strayFiles(['x', '--no-such-option'])).toEqual([]);
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe(`folio: unknown option --no-such-option for folio ${name}; see folio ${name} --help\n`);
      expect(await snapshot()).toEqual(before);
    },
  );

  it('a short flag is named too', async () => {
    const run = await inProcess('backup', 'out.db', '-x');
    expect(run.stderr).toBe('folio: unknown option -x for folio backup; see folio backup --help\n');
    expect(run.code).toBe(2);
  });

  it('a missing option value is one line pointing to --help', async () => {
    const run = await inProcess('import', 'export.json', '--account');
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^folio: Option '--account <value>' argument missing; see folio import --help\n$/);
  });
});

describe('unknown commands, help for them, and the version', () => {
  it.each([
    [['nosuch'], 'folio: unknown command "nosuch"; see folio --help\n'],
    [['nosuch', '--help'], 'folio: unknown command "nosuch"; see folio --help\n'],
    [['help', 'nosuch'], 'folio: unknown command "nosuch"; see folio --help\n'],
    [['help', 'nosuch', 'more'], 'folio: unknown command "nosuch"; see folio --help\n'],
    [['account', 'nosuch'], 'folio: unknown command "account nosuch"; see folio account --help\n'],
    [['help', 'account', 'nosuch'], 'folio: unknown command "account nosuch"; see folio account --help\n'],
    [['-v'], 'folio: unknown command "-v"; see folio --help\n'],
  ])('folio %j is one line pointing to the help, exit 2', async (args, line) => {
    const run = await inProcess(...args);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(line);
  });

  it('folio help alone is the usage of every command, exit 0', async () => {
    const run = await inProcess('help');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage:\n/);
    expect(run.stdout).toContain('folio --version');
  });

  it('the real folio --version prints the version of package.json, exit 0', async () => {
    const { version } = JSON.parse(readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8')) as { version: string };
    const run = await folio('--version');
    expect(run).toEqual({ code: 0, stdout: `folio ${version}\n`, stderr: '' });
  });
});
