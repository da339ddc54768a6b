/**
 * Folio's backups on PostgreSQL (docs/operations.md, "Backups on PostgreSQL"): `folio backup`
 * writes the same file as on SQLite, `folio restore` puts it into a new SQLite data dir or an
 * empty PostgreSQL database with every row, and of several nodes with FOLIO_BACKUP_INTERVAL on
 * one database exactly one writes each scheduled backup.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { BACKUP_PREFIX } from '../../src/backup/backupKeys.js';
import { BACKUP_LEASE_MS } from '../../src/backup/backups.js';
import { claimBackupSlot, renewBackupClaim } from '../../src/backup/backupTurn.js';
import { readSchema } from '../../src/db/copy/copySchema.js';
import type { SqlClient } from '../../src/db/sql/sqlClient.js';
import { openDataSql } from '../support/dataSql.js';
import { FakeClock } from '../support/fakeClock.js';
import { createPostgresDatabase } from '../support/postgres.js';
import { runCliCaptured } from '../support/runCliCaptured.js';
import { testTempDir } from '../support/tempDir.js';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { fillDataDir, tableRows } from './copyFixtures.js';

const freshDatabase = () => createPostgresDatabase(inject('postgresBase')!);

const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closing.length) await closing.pop()!();
});

async function open(env: Record<string, string>): Promise<SqlClient> {
  const data = await openDataSql(env);
  closing.push(data.close);
  return data.sql;
}

/**
 * Every table both databases have, with its shared columns, rows compared as tableRows gives them.
 * PostgreSQL's `seq` of blogs and posts is no column of the backup's SQLite file (its rowid is):
 * made again in the same order within each blog, which is what it orders.
 */
async function expectSameRows(from: SqlClient, to: SqlClient, maxJob: number): Promise<void> {
  const [a, b] = await Promise.all([readSchema(from), readSchema(to)]);
  const skip = new Set(['schema_migrations', 'discovery_posts', 'listing_snapshots', 'rate_windows', 'blog_leases']);
  let compared = 0;
  for (const [table, info] of a) {
    const other = b.get(table);
    if (!other || skip.has(table)) continue;
    const columns = info.columns.filter((c) => other.columns.includes(c) && !(c === 'seq' && (table === 'posts' || table === 'blogs')));
    const where = table === 'publish_jobs' ? `id <= ${maxJob}` : '';
    expect(await tableRows(to, table, columns, where), table).toEqual(await tableRows(from, table, columns, where));
    compared++;
  }
  expect(compared).toBeGreaterThanOrEqual(25);
  const order = (sql: SqlClient) => sql.all(`SELECT id FROM posts ORDER BY blog_id, ${sql.dialect === 'postgres' ? 'seq' : 'rowid'}`);
  expect(await order(to)).toEqual(await order(from));
}

/**
 * Two nodes on one fresh database and one shared store (the folder in the data dir, as nodes
 * share a bucket), FOLIO_BACKUP_INTERVAL set on both, with a blog; B's clock runs 0.3 s ahead of
 * A's, so two backups of one time would have two names.
 */
async function twoBackupNodes(slug: string): Promise<{ a: TestApp; b: TestApp; backups: () => Promise<string[]> }> {
  const dataDir = testTempDir(`folio-pg-${slug}-`);
  const env = { FOLIO_DATABASE_URL: await freshDatabase(), FOLIO_BACKUP_INTERVAL: '1h' };
  const nodes: TestApp[] = [];
  for (const start of ['2026-03-24T10:00:00.000Z', '2026-03-24T10:00:00.300Z']) {
    const node = await startTestApp({ dataDir, env, clock: new FakeClock(start) });
    closing.push(() => node.close());
    nodes.push(node);
  }
  const [a, b] = nodes as [TestApp, TestApp];
  expect((await a.request('POST', '/v1/blogs', { body: { slug, name: slug } })).status).toBe(201);
  return { a, b, backups: async () => (await a.folio.store.list(BACKUP_PREFIX)).sort() };
}

describe('folio backup and restore on PostgreSQL', () => {
  it('backup on PostgreSQL, then restore into a new SQLite data dir and into an empty PostgreSQL database: every row and image is there', async () => {
    const dir = testTempDir('folio-pg-backup-');
    const sourceEnv = { FOLIO_DATA_DIR: join(dir, 'source'), FOLIO_DATABASE_URL: await freshDatabase() };
    const filled = await fillDataDir(sourceEnv.FOLIO_DATA_DIR, { FOLIO_DATABASE_URL: sourceEnv.FOLIO_DATABASE_URL });
    const file = join(dir, 'folio.db.gz');

    const backup = await runCliCaptured(['backup', file], sourceEnv);
    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.stdout).toMatch(
      /^Backed up PostgreSQL 127\.0\.0\.1:\d+\/\w+ to .*folio\.db\.gz: [\d.]+ kB \(gzip of [\d.]+ kB\) in [\d.]+ s\.\nImages: \d+ objects/,
    );
    expect(readdirSync(dir).filter((name) => name.includes('folio-backup.partial'))).toEqual([]);
    const images = readdirSync(join(sourceEnv.FOLIO_DATA_DIR, 'public', filled.blog.slug, 'media')).filter((name) => !name.startsWith('.'));
    expect(images.length).toBeGreaterThan(3);

    const source = await open(sourceEnv);
    const maxJob = Number((await source.get<{ id: number }>('SELECT max(id) AS id FROM publish_jobs'))!.id);

    // Into a new SQLite data dir, as on SQLite.
    const sqliteEnv = { FOLIO_DATA_DIR: join(dir, 'restored-sqlite') };
    const toSqlite = await runCliCaptured(['restore', file], sqliteEnv);
    expect(toSqlite.code, toSqlite.stderr).toBe(0);
    expect(toSqlite.stdout).toContain(`Images: ${images.length} objects put into folder`);
    expect(existsSync(join(sqliteEnv.FOLIO_DATA_DIR, 'folio.db'))).toBe(true);
    await expectSameRows(source, await open(sqliteEnv), maxJob);
    expect(readdirSync(join(sqliteEnv.FOLIO_DATA_DIR, 'public', filled.blog.slug, 'media')).sort()).toEqual(images.sort());

    // Into an empty PostgreSQL database: the data dir holds the store only.
    const pgEnv = { FOLIO_DATA_DIR: join(dir, 'restored-pg'), FOLIO_DATABASE_URL: await freshDatabase() };
    const toPostgres = await runCliCaptured(['restore', file], pgEnv);
    expect(toPostgres.code, toPostgres.stderr).toBe(0);
    expect(toPostgres.stdout).toMatch(/^Restored .*folio\.db\.gz into PostgreSQL 127\.0\.0\.1:\d+\/\w+: 3 accounts, 2 blogs, 7 posts, /);
    expect(readdirSync(pgEnv.FOLIO_DATA_DIR).filter((name) => name !== 'public')).toEqual([]);
    await expectSameRows(source, await open(pgEnv), maxJob);
    expect(readdirSync(join(pgEnv.FOLIO_DATA_DIR, 'public', filled.blog.slug, 'media')).sort()).toEqual(images.sort());

    // The restored database serves the same key; a second restore into it is refused.
    const app = await startTestApp({ dataDir: pgEnv.FOLIO_DATA_DIR, env: { FOLIO_DATABASE_URL: pgEnv.FOLIO_DATABASE_URL } });
    closing.push(() => app.close());
    expect((await app.request('GET', `/v1/posts/${filled.draftSlug}`, { key: filled.blogKey })).status).toBe(200);
    const again = await runCliCaptured(['restore', file], pgEnv);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(
      /^folio: the target database already holds Folio data \(its \w+ table has rows\); copy only into an empty database, so nothing is overwritten \(restore into a new database\)\n$/,
    );
  });

  it('two nodes with FOLIO_BACKUP_INTERVAL on one database write one backup per scheduled time, not two', async () => {
    const { a, b, backups } = await twoBackupNodes('nodes');

    // Both timers fire for 10:00 at once, then a late one of each.
    await Promise.all([a.folio.backups.scheduled(), b.folio.backups.scheduled()]);
    a.clock.advance(20_000);
    b.clock.advance(20_000);
    await Promise.all([b.folio.backups.scheduled(), a.folio.backups.scheduled()]);
    const first = await backups();
    expect(first).toHaveLength(1);
    expect(first[0]).toMatch(/^_backups\/folio-2026-03-24T10-00-00\.(000|300)Z\.db\.gz$/);

    // 11:00: one more, whichever node's timer wins.
    a.clock.set('2026-03-24T11:00:00.100Z');
    b.clock.set('2026-03-24T11:00:00.400Z');
    await Promise.all([b.folio.backups.scheduled(), a.folio.backups.scheduled()]);
    const after = await backups();
    expect(after).toHaveLength(2);
    expect(after[1]).toMatch(/^_backups\/folio-2026-03-24T11-00-00\.(100|400)Z\.db\.gz$/);
  });

  it('a scheduled backup whose node died before it ended is written by another node once the claim lapses, and only then', async () => {
    const { a, b, backups } = await twoBackupNodes('takeover');
    const iso = (clock: FakeClock, plusMs = 0) => new Date(clock.now().getTime() + plusMs).toISOString();

    // A's timer claims 10:00, as scheduled() does, and A dies before it writes anything: the
    // claim is never renewed nor ended.
    expect(await claimBackupSlot(a.folio.sql, '2026-03-24T10:00:00.000Z', iso(a.clock), iso(a.clock, BACKUP_LEASE_MS))).toBe(true);
    await b.folio.backups.scheduled();
    expect(await backups()).toEqual([]);
    // Within the claim, B's minute check leaves it alone; a renewal moves the claim on.
    b.clock.advance(BACKUP_LEASE_MS / 2);
    await b.folio.backups.takeOverAbandoned();
    expect(await backups()).toEqual([]);
    expect(await renewBackupClaim(a.folio.sql, '2026-03-24T10:00:00.000Z', iso(b.clock), iso(b.clock, BACKUP_LEASE_MS))).toBe(true);
    b.clock.advance(BACKUP_LEASE_MS / 2 + 1_000);
    await b.folio.backups.takeOverAbandoned();
    expect(await backups()).toEqual([]);

    // Once the claim has lapsed, B writes the backup, once, and nobody writes it again.
    b.clock.advance(BACKUP_LEASE_MS);
    await b.folio.backups.takeOverAbandoned();
    const taken = await backups();
    expect(taken).toHaveLength(1);
    expect(taken[0]).toMatch(/^_backups\/folio-2026-03-24T10-0[4-9]-/);
    await b.folio.backups.takeOverAbandoned();
    b.clock.advance(10 * BACKUP_LEASE_MS);
    await b.folio.backups.takeOverAbandoned();
    expect(await backups()).toEqual(taken);

    // A backup that ended is never taken over: 11:00 by A's timer, then B's checks long after.
    a.clock.set('2026-03-24T11:00:00.100Z');
    await a.folio.backups.scheduled();
    expect(await backups()).toHaveLength(2);
    b.clock.set('2026-03-24T12:30:00.000Z');
    await b.folio.backups.takeOverAbandoned();
    expect(await backups()).toHaveLength(2);
  });
});
