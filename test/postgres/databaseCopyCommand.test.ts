/**
 * `folio database copy --to <postgres-url>`: the operator's move of a SQLite data dir built
 * through the API onto PostgreSQL, then a server on PostgreSQL with the same data dir settings;
 * and the refusals, each one line, a non-zero exit and the target left as it was.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { visit } from '../../bench/harness/visit.js';
import { PostgresClient } from '../../src/db/sql/postgresClient.js';
import { createPostgresDatabase } from '../support/postgres.js';
import { runCliCaptured } from '../support/runCliCaptured.js';
import { spawnServer, type SpawnedServer } from '../support/spawnedServer.js';
import { testTempDir } from '../support/tempDir.js';
import { startTestApp } from '../support/testApp.js';
import { fillDataDir } from './copyFixtures.js';

/** A new database's URL with a password in it (the test cluster trusts loopback and ignores it): it must never be printed. */
async function freshDatabase(): Promise<string> {
  const url = new URL(await createPostgresDatabase(inject('postgresBase')!));
  url.password = 'never-printed-pw';
  return url.href;
}

async function rows(url: string, sql: string): Promise<number> {
  const client = new PostgresClient(url);
  try {
    return Number((await client.get<{ n: number }>(sql))!.n);
  } finally {
    await client.close();
  }
}

const folioRows = (url: string) => rows(url, 'SELECT (SELECT count(*) FROM accounts) + (SELECT count(*) FROM blogs) + (SELECT count(*) FROM posts) AS n');

const servers: SpawnedServer[] = [];
afterAll(async () => {
  for (const server of servers) await server.cleanup();
});

describe('folio database copy', () => {
  it('moves a SQLite data dir to PostgreSQL: the same keys, pages and search answer there, a new publish works, and site verify is clean', async () => {
    const dataDir = join(testTempDir('folio-move-'), 'data');
    const filled = await fillDataDir(dataDir);
    const url = await freshDatabase();

    const copy = await runCliCaptured(['database', 'copy', '--to', url], { FOLIO_DATA_DIR: dataDir });
    expect(copy.code, copy.stderr).toBe(0);
    expect(copy.stdout).toMatch(
      /^Copied .*folio\.db into PostgreSQL 127\.0\.0\.1:\d+\/\w+: \d+ rows in \d+ tables, in [\d.]+ s; each table's row count checked\.\n/,
    );
    expect(copy.stdout).toMatch(/ {2}posts +7\n/);
    expect(copy.stdout).toContain('Queued 1 discovery jobs');
    expect(copy.stdout + copy.stderr).not.toContain('never-printed-pw');

    const env = { FOLIO_DATA_DIR: dataDir, FOLIO_DATABASE_URL: url };
    const app = await startTestApp({ dataDir, env: { FOLIO_DATABASE_URL: url } });
    try {
      // The same keys: the account's and the blog-bound one.
      const posts = await app.request('GET', '/v1/posts?status=published', { key: filled.key, blogId: filled.blog.id });
      expect(posts.status, posts.text).toBe(200);
      expect((await app.request('GET', `/v1/posts/${filled.draftSlug}`, { key: filled.blogKey })).status).toBe(200);
      for (const post of filled.published) {
        const address = new URL(post.url);
        const page = await visit(app.baseUrl, address.host, address.pathname);
        expect(page.status, post.url).toBe(200);
        expect(page.text).toContain(post.word);
        const found = await app.request('GET', `/v1/search?q=${encodeURIComponent(post.word)}`, { key: filled.key, blogId: filled.blog.id });
        expect(found.status, found.text).toBe(200);
        expect(JSON.stringify(found.body), post.word).toContain(post.slug);
      }
      // The discovery job the copy queued (due at the copy's real time; the test app's clock
      // starts in March) fills PostgreSQL's index on the first tick.
      app.clock.set(new Date(Date.now() + 60_000));
      await app.folio.tick();
      await app.folio.idle();
      const discovered = await app.request('GET', '/v1/discover?q=marshland', { key: null });
      expect(discovered.status, discovered.text).toBe(200);
      expect(JSON.stringify(discovered.body)).toContain(filled.published[0]!.slug);

      const created = await app.request('POST', '/v1/posts', {
        key: filled.key,
        blogId: filled.blog.id,
        body: { title: 'After the move', content: 'Written on PostgreSQL.', status: 'published' },
      });
      expect(created.status, created.text).toBe(201);
      await app.folio.idle();
      const address = new URL(created.body.url);
      expect((await visit(app.baseUrl, address.host, address.pathname)).text).toContain('Written on PostgreSQL.');
    } finally {
      await app.close();
    }
    const verify = await runCliCaptured(['site', 'verify', filled.blog.slug], env);
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
    expect(verify.stdout).toContain('the store matches the database');
  });

  it('refuses a database that already holds Folio rows, and leaves it as it was', async () => {
    const dataDir = join(testTempDir('folio-move-twice-'), 'data');
    await fillDataDir(dataDir);
    const url = await freshDatabase();
    expect((await runCliCaptured(['database', 'copy', '--to', url], { FOLIO_DATA_DIR: dataDir })).code).toBe(0);
    const before = await folioRows(url);

    const again = await runCliCaptured(['database', 'copy', '--to', url], { FOLIO_DATA_DIR: dataDir });
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(
      /^folio: the target database already holds Folio data \(its \w+ table has rows\); copy only into an empty database, so nothing is overwritten; 127\.0\.0\.1:\d+\/\w+ is left as it was\n$/,
    );
    expect(again.stdout).toBe('');
    expect(await folioRows(url)).toBe(before);
  });

  it('refuses text holding NUL, naming its table, row and column, and writes no row', async () => {
    const dataDir = join(testTempDir('folio-move-nul-'), 'data');
    const filled = await fillDataDir(dataDir);
    const db = new Database(join(dataDir, 'folio.db'));
    const { id } = db.prepare('SELECT id FROM posts WHERE slug = ?').get(filled.draftSlug) as { id: string };
    db.prepare("UPDATE posts SET title = 'Nul' || char(0) || 'title' WHERE id = ?").run(id);
    db.close();
    const url = await freshDatabase();

    const refused = await runCliCaptured(['database', 'copy', '--to', url], { FOLIO_DATA_DIR: dataDir });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      `folio: posts row id="${id}": column title holds the character U+0000 (NUL), which PostgreSQL cannot store; remove it from that row in SQLite, then copy again (nothing was copied); ${new URL(url).host}${new URL(url).pathname} is left as it was\n`,
    );
    expect(await folioRows(url)).toBe(0);
  });

  it('refuses while a server runs on the data dir, before it touches the database', async () => {
    const server = await spawnServer({ FOLIO_RATE_LIMITS: 'off' });
    servers.push(server);
    const url = await freshDatabase();
    const refused = await runCliCaptured(['database', 'copy', '--to', url], { FOLIO_DATA_DIR: server.dataDir });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      `folio: a Folio server (pid ${server.child.pid}) is running on ${server.dataDir}; stop the server first, then run database copy again\n`,
    );
    expect(await rows(url, "SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = 'public'")).toBe(0);
  });
});
