/**
 * Issue 27 items 7 and 9. A data dir that cannot be created, a full disk, a database locked by
 * another process or a file that is not a database stopped the server and the CLI with a raw SQLite or
 * Node stack trace; now each is one line naming the path and what to do. The log names the
 * migrations a start applied, and a build older than the database's schema (migrations it does
 * not know) refuses to start instead of running on it. The real bundled server and the real
 * `folio` command, each in its own process.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MAIN_JS } from '../support/spawnedServer.js';
import { freePort } from '../../bench/harness/ports.js';

const BIN = fileURLToPath(new URL('../../bin/folio.js', import.meta.url));
const MIGRATIONS = readdirSync(fileURLToPath(new URL('../../src/db/migrations/', import.meta.url)))
  .filter((name) => name.endsWith('.sql'))
  .sort();

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the server or the command to its end (a server that starts is stopped once it listens). */
function run(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_NO_WARNINGS: '1', HOST: '127.0.0.1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      if (stdout.includes('"folio listening"')) child.kill('SIGTERM');
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function expectOneLine(result: Run, code: number, line: RegExp): void {
  expect(result.stderr.endsWith('\n') ? result.stderr.slice(0, -1).split('\n') : [result.stderr], result.stderr).toHaveLength(1);
  expect(result.stderr).toMatch(line);
  expect(result.stderr).not.toMatch(/\n\s+at /);
  expect(result.code).toBe(code);
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'folio-start-'));
  dirs.push(dir);
  return dir;
}

beforeAll(() => {
  expect(existsSync(MAIN_JS), 'run `npx tsc -p . && npm run bundle` first').toBe(true);
});

describe('a data dir or database the operator must fix: one line naming the path and what to do', () => {
  it('a data dir that cannot be created (part of its path is a file)', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'file'), 'not a folder');
    const dataDir = join(dir, 'file', 'data');
    const env = { FOLIO_DATA_DIR: dataDir, PORT: String(await freePort()) };
    const line = new RegExp(
      `^folio: the data dir ${dataDir.replace(/[/.]/g, '\\$&')} cannot be created: part of that path is a file, not a folder; set FOLIO_DATA_DIR to a writable folder`,
    );
    expectOneLine(await run([MAIN_JS], env), 1, line);
    expectOneLine(await run([BIN, 'account', 'list'], env), 2, line);
    expectOneLine(await run([BIN, 'site', 'rebuild', '--all'], env), 2, line);
  });

  it('a file that is not a database', async () => {
    const dataDir = tempDir();
    writeFileSync(join(dataDir, 'folio.db'), 'x'.repeat(4096));
    const env = { FOLIO_DATA_DIR: dataDir, PORT: String(await freePort()) };
    const line = /^folio: \S+\/folio\.db is not a Folio database or is damaged \(SQLITE_NOTADB\); move it away and restore a backup/;
    expectOneLine(await run([MAIN_JS], env), 1, line);
    expectOneLine(await run([BIN, 'account', 'list'], env), 2, line);
  });

  it('a full disk', async () => {
    const dataDir = tempDir();
    // /dev/full is the kernel's full disk: every write to it fails with ENOSPC, which SQLite reports as SQLITE_FULL.
    symlinkSync('/dev/full', join(dataDir, 'folio.db'));
    const env = { FOLIO_DATA_DIR: dataDir, PORT: String(await freePort()) };
    const line = new RegExp(`^folio: the disk holding ${dataDir.replace(/[/.]/g, '\\$&')} is full \\(SQLITE_FULL\\); free some space`);
    expectOneLine(await run([MAIN_JS], env), 1, line);
    expectOneLine(await run([BIN, 'account', 'list'], env), 2, line);
  });

  it('a database another process holds locked', async () => {
    const dataDir = tempDir();
    const env = { FOLIO_DATA_DIR: dataDir, PORT: String(await freePort()) };
    // A first start makes the database; then another process takes it for itself (a sqlite3 shell in exclusive mode).
    expect((await run([MAIN_JS], env)).stdout).toContain('folio listening');
    const other = new Database(join(dataDir, 'folio.db'));
    try {
      other.pragma('locking_mode = EXCLUSIVE');
      other.exec('BEGIN EXCLUSIVE');
      const line = /^folio: the database \S+\/folio\.db is locked by another process .*; stop it or wait for it to finish, then try again\n$/;
      // Both wait out the 5-second busy timeout before giving up: side by side, not one after the other.
      const [server, cli] = await Promise.all([run([MAIN_JS], env), run([BIN, 'account', 'list'], env)]);
      expectOneLine(server, 1, line);
      // 75: EX_TEMPFAIL, as for a write that found the database busy.
      expectOneLine(cli, 75, line);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
  });
});

describe('migrations at start (item 9)', () => {
  it('the log names the migrations a start applied; a database from a newer build is refused, not run on', async () => {
    const dataDir = tempDir();
    const env = { FOLIO_DATA_DIR: dataDir, PORT: String(await freePort()) };
    const first = await run([MAIN_JS], env);
    expect(first.stdout).toContain('folio listening');
    const applied = first.stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg: string; migrations?: string[] })
      .find((line) => line.migrations !== undefined);
    expect(applied?.migrations).toEqual(MIGRATIONS);
    expect(applied?.msg).toBe(`applied ${MIGRATIONS.length} database migrations: ${MIGRATIONS.join(', ')}`);
    // A restart applies none and says nothing about them.
    expect((await run([MAIN_JS], env)).stdout).not.toContain('database migration');

    // A newer Folio ran here and added a migration this build does not have.
    const db = new Database(join(dataDir, 'folio.db'));
    db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(999, '999_from_the_future.sql', new Date().toISOString());
    db.close();
    const line =
      /^folio: the database \S+\/folio\.db was upgraded by a newer Folio \(migrations this build does not know: 999_from_the_future\.sql\); run that version \(or newer\), or restore a backup/;
    const refused = await run([MAIN_JS], env);
    expectOneLine(refused, 1, line);
    expect(refused.stdout).not.toContain('folio listening');
    expectOneLine(await run([BIN, 'account', 'list'], env), 2, line);
  });
});
