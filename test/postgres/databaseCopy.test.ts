/**
 * The database copier (src/db/copy/) on real databases: a SQLite data dir filled through the
 * app's API goes to PostgreSQL and back to SQLite with every copied table's rows equal, and a
 * copy it refuses leaves the target empty.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyDatabase, CopyRefusedError } from '../../src/db/copy/copyDatabase.js';
import { copyPostgresToSqlite, copySqliteToPostgres } from '../../src/db/copy/copyToPostgres.js';
import { readSchema } from '../../src/db/copy/copySchema.js';
import { sqliteSnapshot } from '../../src/db/copy/snapshotSource.js';
import { openDatabase } from '../../src/db/database.js';
import { PostgresClient } from '../../src/db/sql/postgresClient.js';
import { migratePostgres } from '../../src/db/sql/postgresMigrations.js';
import { SqliteClient } from '../../src/db/sql/sqliteClient.js';
import type { SqlClient } from '../../src/db/sql/sqlClient.js';
import { usePostgres } from '../support/postgresRepos.js';
import { testTempDir } from '../support/tempDir.js';
import { fillDataDir, tableRows } from './copyFixtures.js';

const postgres = usePostgres();
const NOW = '2026-11-30T00:00:00.000Z';

/** A client of the test's own, closed when the test ends. */
function sqliteClient(file: string): SqlClient & { closeAll(): Promise<void> } {
  const db = openDatabase(file);
  const client = new SqliteClient(db);
  return Object.assign(client, {
    closeAll: async () => {
      await client.close();
      db.close();
    },
  });
}

async function rowCount(sql: SqlClient, table: string): Promise<number> {
  return Number((await sql.get<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))!.n);
}

describe('copying a Folio database between SQLite and PostgreSQL', () => {
  it('SQLite → PostgreSQL → SQLite keeps every copied table row for row', async () => {
    const dir = testTempDir('folio-copy-');
    const filled = await fillDataDir(join(dir, 'data'));
    const sourceFile = join(filled.dataDir, 'folio.db');
    // Many batches: keyset pages over rowids and over composite keys (WITHOUT ROWID), and long
    // posts, which make batches of fewer rows.
    const bulk = new Database(sourceFile);
    const blogId = (bulk.prepare("SELECT id FROM blogs WHERE slug = 'heron'").get() as { id: string }).id;
    bulk
      .prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1500)
         INSERT INTO object_hashes (blog_id, key, hash) SELECT ?, 'bulk/' || i || '/index.html', hex(randomblob(16)) FROM n`,
      )
      .run(blogId);
    bulk
      .prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40)
         INSERT INTO posts (id, blog_id, title, slug, content_md, content_html, meta_description, status, created_at, updated_at)
         SELECT 'long-' || i, ?, 'Long ' || i, 'long-' || i, ? || i, '<p>long</p>', 'x', 'draft', ?, ? FROM n`,
      )
      .run(blogId, 'x'.repeat(200_000), NOW, NOW);
    bulk.prepare('INSERT INTO analytics_salts (day, salt) VALUES (?, ?)').run('2026-03-24', Buffer.from([0, 1, 2, 254, 255]));
    bulk.close();
    const url = await postgres.server().createDatabase();

    const there = await copySqliteToPostgres(sourceFile, url, NOW);
    const backFile = join(dir, 'back.db');
    const back = await copyPostgresToSqlite(url, backFile, NOW);
    expect(back.tables.map((t) => t.table)).toEqual(there.tables.map((t) => t.table));
    // Both hops queued a discovery job for the one discoverable blog.
    expect([there.discoveryJobs, back.discoveryJobs]).toEqual([1, 1]);
    for (const table of ['schema_migrations', 'discovery_posts', 'listing_snapshots', 'rate_windows']) {
      expect(there.skipped.map((s) => s.table)).toContain(table);
    }

    const source = sqliteClient(sourceFile);
    const pg = new PostgresClient(url);
    const final = sqliteClient(backFile);
    try {
      const [sourceSchema, pgSchema] = await Promise.all([readSchema(source), readSchema(pg)]);
      const maxJob = Number((await source.get<{ id: number }>('SELECT max(id) AS id FROM publish_jobs'))!.id);
      let nonEmpty = 0;
      for (const { table, rows } of there.tables) {
        const columns = sourceSchema.get(table)!.columns.filter((c) => pgSchema.get(table)!.columns.includes(c));
        // The jobs each copy queued come after the copied ones.
        const where = table === 'publish_jobs' ? `id <= ${maxJob}` : '';
        const expected = await tableRows(source, table, columns, where);
        expect(expected.length, table).toBe(rows);
        expect(await tableRows(pg, table, columns, where), `${table} on PostgreSQL`).toEqual(expected);
        expect(await tableRows(final, table, columns, where), `${table} back on SQLite`).toEqual(expected);
        if (rows > 0) nonEmpty++;
      }
      // Real content in the tables that matter, not a copy of nothing.
      for (const table of [
        'accounts',
        'blogs',
        'posts',
        'post_tags',
        'post_revisions',
        'media',
        'post_media',
        'api_keys',
        'webhooks',
        'sessions',
        'publish_jobs',
        'post_changes',
        'object_hashes',
        'settings',
        'post_redirects',
        'post_aliases',
        'idempotency_keys',
        'webhook_attempts',
      ]) {
        expect(await rowCount(source, table), table).toBeGreaterThan(0);
      }
      expect(nonEmpty).toBeGreaterThanOrEqual(19);
      expect(await rowCount(final, 'publish_jobs')).toBe(maxJob + 2);

      // Insertion order survives: SQLite's rowid order is PostgreSQL's seq within each blog, and back.
      const order = async (sql: SqlClient, by: string) => (await sql.all<{ id: string }>(`SELECT id FROM posts ORDER BY blog_id, ${by}`)).map((r) => r.id);
      expect(await order(pg, 'seq')).toEqual(await order(source, 'rowid'));
      expect(await order(final, 'rowid')).toEqual(await order(source, 'rowid'));

      // The post_changes trigger wrote nothing extra, and is on again.
      expect(await rowCount(pg, 'post_changes')).toBe(await rowCount(source, 'post_changes'));
      const changes = await rowCount(pg, 'post_changes');
      await pg.run("UPDATE posts SET title = 'Renamed' WHERE status = 'published' AND id = (SELECT min(id) FROM posts WHERE status = 'published')");
      expect(await rowCount(pg, 'post_changes')).toBe(changes + 1);
      // Identity sequences continue after the copied values.
      const maxSeq = Number((await pg.get<{ s: number }>('SELECT max(seq) AS s FROM post_changes'))!.s);
      expect(maxSeq).toBeGreaterThan(Number((await source.get<{ s: number }>('SELECT max(seq) AS s FROM post_changes'))!.s));
      const job = await pg.get<{ id: number }>(
        "INSERT INTO publish_jobs (blog_id, blog_slug, kind, payload, status, run_after, created_at, updated_at) VALUES ('b', 'b', 'site', '{}', 'done', ?, ?, ?) RETURNING id",
        [NOW, NOW, NOW],
      );
      expect(Number(job!.id)).toBe(maxJob + 2);
    } finally {
      await pg.close();
      await source.closeAll();
      await final.closeAll();
    }
  });

  it('refuses text holding NUL, naming table, row and column, and leaves PostgreSQL empty', async () => {
    const dir = testTempDir('folio-copy-nul-');
    const file = join(dir, 'folio.db');
    const db = openDatabase(file);
    db.prepare("INSERT INTO accounts (id, email, plan, created_at, updated_at) VALUES ('a1', 'a@example.com', 'creator', ?, ?)").run(NOW, NOW);
    db.prepare("INSERT INTO blogs (id, account_id, slug, name, created_at, updated_at) VALUES ('b1', 'a1', 'one', 'One', ?, ?)").run(NOW, NOW);
    db.prepare(
      `INSERT INTO posts (id, blog_id, title, slug, content_md, content_html, meta_description, status, created_at, updated_at)
       VALUES ('p1', 'b1', 'Nul', 'nul', ?, '<p>x</p>', 'x', 'draft', ?, ?)`,
    ).run('before\u0000after', NOW, NOW);
    db.close();
    const url = await postgres.server().createDatabase();
    await migratePostgres(url);
    const source = sqliteSnapshot(file);
    const target = new PostgresClient(url);
    try {
      const refused = await copyDatabase(source, target, { now: NOW }).catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(CopyRefusedError);
      expect((refused as Error).message).toMatch(/^posts row id="p1": column content_md holds the character U\+0000 \(NUL\)/);
      for (const table of ['accounts', 'blogs', 'posts']) expect(await rowCount(target, table), table).toBe(0);
    } finally {
      await target.close();
      await source.close();
    }
  });

  it('refuses a target that already holds Folio rows, and changes nothing in it', async () => {
    const dir = testTempDir('folio-copy-full-');
    const file = join(dir, 'folio.db');
    const db = openDatabase(file);
    db.prepare("INSERT INTO accounts (id, email, plan, created_at, updated_at) VALUES ('a1', 'a@example.com', 'creator', ?, ?)").run(NOW, NOW);
    db.close();
    const { sql: target, url } = await postgres.seededDatabase();
    const before = await tableRows(target, 'accounts', ['id', 'email']);
    const refused = await copySqliteToPostgres(file, url, NOW).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(CopyRefusedError);
    expect((refused as Error).message).toMatch(/already holds Folio data \(its \w+ table has rows\)/);
    expect(await tableRows(target, 'accounts', ['id', 'email'])).toEqual(before);
    // Read-only source: the snapshot never wrote to the file.
    expect(new Database(file, { readonly: true }).prepare('SELECT count(*) AS n FROM accounts').get()).toEqual({ n: 1 });
  });
});
