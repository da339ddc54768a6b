/**
 * The discovery index on PostgreSQL (src/db/postgresDiscoveryRepo.ts) with the baseline schema:
 * the contract SQLite's FTS5 index keeps (test/support/discoveryIndexContract.ts), and plans
 * that find a rare word through the GIN index and read a common one newest first.
 */
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { PostgresDiscoveryRepo, SEARCH_SQL, tsquery } from '../../src/db/postgresDiscoveryRepo.js';
import { migratePostgres } from '../../src/db/sql/postgresMigrations.js';
import { PostgresClient } from '../../src/db/sql/postgresClient.js';
import type { DiscoveryDocument } from '../../src/search/discovery/ports.js';
import { discoveryIndexContract } from '../support/discoveryIndexContract.js';
import { startPostgres, type Postgres } from '../support/postgres.js';

let server: Postgres;
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => server?.stop());

async function migrated(): Promise<PostgresClient> {
  const url = await server.createDatabase();
  await migratePostgres(url);
  const sql = new PostgresClient(url);
  onTestFinished(() => sql.close());
  return sql;
}

describe('PostgresDiscoveryRepo', () => {
  discoveryIndexContract(async () => {
    const sql = await migrated();
    return {
      sql,
      index: new PostgresDiscoveryRepo(sql),
      entries: async () => (await sql.all<{ post_id: string }>('SELECT post_id FROM discovery_posts ORDER BY post_id')).map((row) => row.post_id),
      entriesWithTerm: async (term) =>
        (await sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM discovery_posts WHERE terms @@ ?::tsquery', [tsquery([term])]))?.n ?? 0,
    };
  });

  it('keeps a post with more distinct terms than a tsvector holds (1 MB), its first terms searchable', async () => {
    const sql = await migrated();
    const T = '2026-03-01T00:00:00.000Z';
    await sql.run(`INSERT INTO accounts (id, plan, created_at, updated_at) VALUES ('a', 'enterprise', ?, ?)`, [T, T]);
    await sql.run(`INSERT INTO blogs (id, account_id, slug, name, discoverable, created_at, updated_at) VALUES ('b', 'a', 'b', 'B', 1, ?, ?)`, [T, T]);
    await sql.run(
      `INSERT INTO posts (id, blog_id, title, slug, content_md, content_html, meta_description, status, published_at, created_at, updated_at)
       VALUES ('b/huge', 'b', 'Giant', 'huge', '', '', '', 'published', ?, ?, ?)`,
      [T, T, T],
    );
    const code = Array.from({ length: 120_000 }, (_, i) => `x${String(i).padStart(9, '0')}`).join(' ');
    const repo = new PostgresDiscoveryRepo(sql);
    await repo.upsert([{ postId: 'b/huge', blogId: 'b', lang: 'en', publishedAt: T, title: 'Giant', tags: [], description: '', body: '', code }]);
    expect((await repo.search({ q: 'giant x000000001', page: 1, perPage: 10 })).total).toBe(1);
    expect((await repo.search({ q: 'x000119999', page: 1, perPage: 10 })).total).toBe(0);
  });

  it('finds a rare word, and a filter, through the GIN index, and a common word newest first through the primary key', async () => {
    const sql = await migrated();
    const T = '2026-03-01T00:00:00.000Z';
    await sql.run(`INSERT INTO accounts (id, plan, created_at, updated_at) VALUES ('a', 'enterprise', ?, ?)`, [T, T]);
    const docs: DiscoveryDocument[] = [];
    for (let b = 0; b < 20; b++) {
      await sql.run(`INSERT INTO blogs (id, account_id, slug, name, discoverable, created_at, updated_at) VALUES (?, 'a', ?, ?, 1, ?, ?)`, [
        `b${b}`,
        `b${b}`,
        'B',
        T,
        T,
      ]);
      await sql.transaction(async (tx) => {
        for (let i = 0; i < 150; i++) {
          const id = `b${b}/p${i}`;
          const publishedAt = new Date(Date.UTC(2024, 0, 1) + (b * 150 + i) * 60_000).toISOString();
          await tx.run(
            `INSERT INTO posts (id, blog_id, title, slug, content_md, content_html, meta_description, status, published_at, created_at, updated_at)
             VALUES (?, ?, 'Post', ?, '', '', '', 'published', ?, ?, ?)`,
            [id, `b${b}`, `p${i}`, publishedAt, T, T],
          );
          const rare = b === 7 && i === 42 ? ' platypus' : '';
          // About a hundred words of a 3,000-word vocabulary, as a short post has.
          const words = Array.from({ length: 100 }, (_, k) => `w${((b * 150 + i) * 7919 + k * 104_729) % 3000}`);
          const body = `the common ${words.join(' ')}${rare}`;
          docs.push({ postId: id, blogId: `b${b}`, lang: 'en', publishedAt, title: 'Post', tags: [], description: '', body, code: '' });
        }
      });
    }
    const repo = new PostgresDiscoveryRepo(sql);
    await repo.upsert(docs);
    await sql.run('ANALYZE');
    expect(await repo.search({ q: 'platypus', page: 1, perPage: 20 })).toMatchObject({ total: 1, hits: [{ slug: 'p42' }] });
    const plan = async (statement: string, params: (string | number)[]): Promise<string> =>
      (await sql.all<{ 'QUERY PLAN': string }>(`EXPLAIN ${statement}`, params)).map((row) => row['QUERY PLAN']).join('\n');
    const gin = /Bitmap Index Scan on discovery_posts_terms/;
    expect(await plan(SEARCH_SQL.page, [tsquery(['platypus']), 20, 0])).toMatch(gin);
    expect(await plan(SEARCH_SQL.count, [tsquery(['platypus']), 1000])).toMatch(gin);
    expect(await plan(SEARCH_SQL.filteredPage, [tsquery(['post', 'platypus']), 'len', 20, 0])).toMatch(gin);
    // A word every post holds is read newest first until the page is full, as on SQLite: no sort of every match.
    expect(await plan(SEARCH_SQL.page, [tsquery(['common']), 20, 0])).toMatch(/Index Scan Backward using discovery_posts_pkey/);
  });
});
