/**
 * Hardening issue item 11 (CLI part): expected failures of `folio` are one line on stderr and a
 * non-zero exit code, never a stack trace; an unexpected error shows its stack only on request.
 */
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { databaseFile } from '../../src/compose/adapters.js';
import type { SqlClient } from '../../src/db/sql/sqlClient.js';
import { withDataSql } from '../support/dataSql.js';
import { freshDataEnv, startTestApp, type TestApp } from '../support/testApp.js';
import { buildBlog, buildPost } from '../support/factories.js';
import { runCliCaptured, type CliRun } from '../support/runCliCaptured.js';

const STACK_LINE = /\n\s+at /;

/**
 * One `folio: …` line and no stack. Other stderr lines may precede it: a rebuild's progress bar,
 * or Node's warning that the AWS SDK will need a newer Node.
 */
function expectOneLine(run: CliRun, code: number, line: RegExp): void {
  expect(run.stderr, run.stderr).not.toMatch(STACK_LINE);
  expect(run.stderr).toMatch(/\n?folio: [^\n]+\n$/);
  const lines = run.stderr.split('\n').filter((l) => l.startsWith('folio: '));
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(line);
  expect(run.code).toBe(code);
}

/** The blog `clierr` with one published post, in the app's data. */
async function publishedBlog(t: TestApp): Promise<void> {
  const blog = await buildBlog(t, { slug: 'clierr' });
  const post = await buildPost(blog, { title: 'Only post' });
  expect((await blog.actor.request('POST', `/v1/posts/${post.slug}/publish`, { blogId: blog.id })).status).toBe(200);
  await t.folio.idle();
}

describe('folio CLI failures', () => {
  let t: TestApp;
  let dataDir: string;
  /** The app's data for the CLI: its data dir, and on the PostgreSQL pass its database. */
  const env = (): Record<string, string> => t.cliEnv;

  /**
   * The app's data beside another data dir (another store root): on SQLite a copy of its file
   * there, on PostgreSQL the same database (what a test changes in it, it puts back).
   */
  async function dataBeside(dir: string): Promise<Record<string, string>> {
    if (env().FOLIO_DATABASE_URL !== undefined) return { ...env(), FOLIO_DATA_DIR: dir };
    const source = new Database(databaseFile({ dataDir }));
    await source.backup(join(dir, 'folio.db'));
    source.close();
    return { FOLIO_DATA_DIR: dir };
  }

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'folio-cli-'));
    t = await startTestApp({ dataDir, env: await freshDataEnv(dataDir), publicUrls: 'server' });
    await publishedBlog(t);
  });
  afterAll(async () => {
    await t.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('an unknown blog is one line and exit 2, without the usage text', async () => {
    const run = await runCliCaptured(['site', 'verify', 'no-such-blog'], env());
    expectOneLine(run, 2, /^folio: no blog with slug "no-such-blog"$/);
    expect(run.stderr).toBe('folio: no blog with slug "no-such-blog"\n');
  });

  it('a bad configuration value names the variable, exit 2', async () => {
    const run = await runCliCaptured(['site', 'verify', 'clierr'], { ...env(), FOLIO_STORAGE: 'ftp' });
    expectOneLine(run, 2, /^folio: FOLIO_STORAGE: expected one of fs, s3, got "ftp"$/);
  });

  it('a database locked by another writer says so and exits 75 (try again)', async () => {
    // SQLite's in both passes: the lock held is SQLite's lock on its file.
    const sqliteDir = mkdtempSync(join(tmpdir(), 'folio-cli-locked-'));
    try {
      const app = await startTestApp({ dataDir: sqliteDir, publicUrls: 'server' });
      try {
        await publishedBlog(app);
      } finally {
        await app.close();
      }
      const sqliteEnv = { FOLIO_DATA_DIR: sqliteDir };
      const other = new Database(databaseFile({ dataDir: sqliteDir }));
      other.pragma('busy_timeout = 0');
      other.exec('BEGIN IMMEDIATE');
      try {
        // The rebuild records the hashes of what it wrote: that write waits for the lock, then gives up.
        const run = await runCliCaptured(['site', 'rebuild', 'clierr'], sqliteEnv, { busyTimeoutMs: 200 });
        expectOneLine(run, 75, /^folio: the database is busy \(another folio process is writing\); try again$/);
      } finally {
        other.exec('ROLLBACK');
        other.close();
      }
      // Once the lock is gone the same command works.
      const again = await runCliCaptured(['site', 'rebuild', 'clierr'], sqliteEnv);
      expect(again.code, again.stderr).toBe(0);
    } finally {
      rmSync(sqliteDir, { recursive: true, force: true });
    }
  });

  it('a folder store that cannot be written is a store failure, exit 2', async () => {
    const blocked = mkdtempSync(join(tmpdir(), 'folio-cli-blocked-'));
    try {
      // Same database, but the store's root is a file: every write fails with ENOTDIR/EEXIST.
      const data = await dataBeside(blocked);
      writeFileSync(join(blocked, 'public'), 'not a folder');
      const run = await runCliCaptured(['site', 'rebuild', 'clierr'], data);
      expectOneLine(run, 2, /^folio: the site store failed: fs \w+ failed for "[^"]+": E[A-Z]+$/);
    } finally {
      rmSync(blocked, { recursive: true, force: true });
    }
  });

  it('a missing S3 bucket is a store failure, exit 2', async () => {
    // The SDK reads credentials from the process environment (its default chain), not the CLI's env.
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'S3RVER');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'S3RVER');
    try {
      const run = await runCliCaptured(['site', 'verify', 'clierr'], {
        ...env(),
        FOLIO_STORAGE: 's3',
        FOLIO_S3_BUCKET: 'folio-cli-no-such-bucket',
        FOLIO_S3_ENDPOINT: inject('s3Endpoint'),
      });
      expectOneLine(run, 2, /^folio: the site store failed: S3 \w+ failed for .* in bucket folio-cli-no-such-bucket: NoSuchBucket/);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('an unexpected error is one line naming FOLIO_DEBUG; the stack only with --debug or FOLIO_DEBUG=1', async () => {
    const broken = mkdtempSync(join(tmpdir(), 'folio-cli-broken-'));
    const data = await dataBeside(broken);
    const themeConfig = (sql: SqlClient, value: string) => sql.run("UPDATE blogs SET theme_config = ? WHERE slug = 'clierr'", [value]);
    // A row no code path writes: reading the blog throws a plain SyntaxError (a bug, not an expected failure).
    const saved = await withDataSql(data, async (sql) => {
      const row = await sql.get<{ theme_config: string }>("SELECT theme_config FROM blogs WHERE slug = 'clierr'");
      await themeConfig(sql, '{');
      return row!.theme_config;
    });
    try {
      const plain = await runCliCaptured(['site', 'verify', 'clierr'], data);
      expectOneLine(plain, 2, /^folio: unexpected error: .+ \(FOLIO_DEBUG=1 or --debug prints the stack\)$/);

      for (const run of [
        await runCliCaptured(['--debug', 'site', 'verify', 'clierr'], data),
        await runCliCaptured(['site', 'verify', 'clierr'], { ...data, FOLIO_DEBUG: '1' }),
      ]) {
        expect(run.code).toBe(2);
        expect(run.stderr).toMatch(/^folio: unexpected error: [^\n]+\nSyntaxError: [^\n]+\n\s+at /);
      }
    } finally {
      await withDataSql(data, (sql) => themeConfig(sql, saved));
      rmSync(broken, { recursive: true, force: true });
    }
  });

  it('the installed entry (bin/folio.js) prints the same single line and sets the exit code', async () => {
    const bin = fileURLToPath(new URL('../../bin/folio.js', import.meta.url));
    // bin/folio.js runs the compiled CLI, which `npm test` (tsc -p .) builds before vitest runs.
    expect(existsSync(fileURLToPath(new URL('../../dist/src/cliMain.js', import.meta.url))), 'run `npx tsc -p .` first').toBe(true);
    const result = await promisify(execFile)(process.execPath, [bin, 'site', 'verify', 'no-such-blog'], {
      env: { PATH: process.env.PATH, ...env() },
    }).then(
      () => ({ code: 0, stderr: '' }),
      (err: { code: number; stderr: string }) => ({ code: err.code, stderr: err.stderr }),
    );
    expect(result).toEqual({ code: 2, stderr: 'folio: no blog with slug "no-such-blog"\n' });
  });
});
