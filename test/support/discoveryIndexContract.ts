/**
 * What every DiscoveryIndex (src/search/discovery/ports.ts) does, on a real migrated database:
 * newest first (posts of the same second in the order they were indexed), the 1,000-result reach,
 * whole terms in the text only, filters as exact tokens, and what the live rows hide whatever the
 * index holds. Run on SQLite (test/unit/db/discoveryRepo.test.ts) and on PostgreSQL
 * (test/postgres/discoveryRepo.test.ts); the rows are written through the query seam.
 */
import { expect, it } from 'vitest';
import type { SqlClient, SqlWriter } from '../../src/db/sql/sqlClient.js';
import { MAX_DISCOVERY_RESULTS, type DiscoveryDocument, type DiscoveryIndex } from '../../src/search/discovery/ports.js';

/** A migrated, empty database and the index under test on it. */
export interface DiscoveryDatabase {
  sql: SqlClient;
  index: DiscoveryIndex;
  /** The post ids of the entries the index holds, whatever the live rows say. */
  entries(): Promise<string[]>;
  /** How many entries hold this term (the index's own storage, not the live rows). */
  entriesWithTerm(term: string): Promise<number>;
}

const NOW = '2026-03-01T00:00:00.000Z';

type PostFields = Partial<DiscoveryDocument> & { status?: string };

async function blog(sql: SqlWriter, slug: string, discoverable = true): Promise<string> {
  await sql.run(`INSERT INTO blogs (id, account_id, slug, name, discoverable, created_at, updated_at) VALUES (?, 'a', ?, ?, ?, ?, ?)`, [
    slug,
    slug,
    `Blog ${slug}`,
    discoverable ? 1 : 0,
    NOW,
    NOW,
  ]);
  return slug;
}

async function post(sql: SqlWriter, blogId: string, slug: string, fields: PostFields = {}): Promise<DiscoveryDocument> {
  const publishedAt = fields.publishedAt ?? NOW;
  const tags = fields.tags ?? [];
  await sql.run(
    `INSERT INTO posts (id, blog_id, title, slug, content_md, content_html, meta_description, tags, status, published_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, '', '', '', ?, ?, ?, ?, ?)`,
    [`${blogId}/${slug}`, blogId, fields.title ?? slug, slug, JSON.stringify(tags), fields.status ?? 'published', publishedAt, NOW, NOW],
  );
  return {
    postId: `${blogId}/${slug}`,
    blogId,
    lang: fields.lang ?? 'en',
    publishedAt,
    title: fields.title ?? slug,
    tags,
    description: fields.description ?? '',
    body: fields.body ?? '',
    code: fields.code ?? '',
  };
}

const slugs = (result: { hits: { slug: string }[] }) => result.hits.map((hit) => hit.slug);

export function discoveryIndexContract(open: () => Promise<DiscoveryDatabase>): void {
  const database = async (): Promise<DiscoveryDatabase> => {
    const db = await open();
    await db.sql.run(`INSERT INTO accounts (id, plan, created_at, updated_at) VALUES ('a', 'enterprise', ?, ?)`, [NOW, NOW]);
    return db;
  };

  it('orders newest first; posts of the same second in the order they were indexed, an edit moving to the front of its second', async () => {
    const { sql, index } = await database();
    const b = await blog(sql, 'b');
    const a1 = await post(sql, b, 'a1', { body: 'otter', publishedAt: '2026-01-01T00:00:00.100Z' });
    const a2 = await post(sql, b, 'a2', { body: 'otter', publishedAt: '2026-01-01T00:00:00.900Z' });
    const old = await post(sql, b, 'old', { body: 'otter', publishedAt: '2020-01-01T00:00:00.000Z' });
    const late = await post(sql, b, 'late', { body: 'otter', publishedAt: '2026-02-01T00:00:00.000Z' });
    await index.upsert([a1, a2, old, late]);
    expect(slugs(await index.search({ q: 'otter', page: 1, perPage: 10 }))).toEqual(['late', 'a2', 'a1', 'old']);
    await index.upsert([a1]);
    expect(slugs(await index.search({ q: 'otter', page: 1, perPage: 10 }))).toEqual(['late', 'a1', 'a2', 'old']);
  });

  it('reaches the first 1,000 matches: total stops there and pages past them are empty', async () => {
    const { sql, index } = await database();
    const b = await blog(sql, 'many');
    const docs = await sql.transaction(async (tx) => {
      const made: DiscoveryDocument[] = [];
      for (let i = 0; i < MAX_DISCOVERY_RESULTS + 5; i++) {
        made.push(await post(tx, b, `p${i}`, { title: 'common word', publishedAt: new Date(Date.UTC(2025, 0, 1) + i * 1000).toISOString() }));
      }
      return made;
    });
    await index.upsert(docs);
    const first = await index.search({ q: 'common', page: 1, perPage: 50 });
    expect(first.total).toBe(MAX_DISCOVERY_RESULTS);
    expect(first.hits[0]!.slug).toBe(`p${MAX_DISCOVERY_RESULTS + 4}`);
    const last = await index.search({ q: 'common', page: MAX_DISCOVERY_RESULTS / 50, perPage: 50 });
    expect(last.hits).toHaveLength(50);
    expect(last.hits.at(-1)!.slug).toBe('p5');
    expect((await index.search({ q: 'common', page: MAX_DISCOVERY_RESULTS / 50 + 1, perPage: 50 })).hits).toEqual([]);
    expect(await index.search({ q: 'common', page: 1_000_000, perPage: 50 })).toEqual({ hits: [], total: MAX_DISCOVERY_RESULTS });
  });

  it('matches words in the text columns only; tag and language filters are exact and never matched by words', async () => {
    const { sql, index } = await database();
    const b = await blog(sql, 'b');
    await index.upsert([
      await post(sql, b, 'tagged', { title: 'Ferry', tags: ['C++', '여행 기록'], lang: 'en' }),
      await post(sql, b, 'korean', { title: '배를 탔다', body: 'ferry', lang: 'ko' }),
    ]);
    expect(slugs(await index.search({ q: 'ferry', page: 1, perPage: 10, tag: 'C++' }))).toEqual(['tagged']);
    expect(slugs(await index.search({ q: 'ferry', page: 1, perPage: 10, tag: 'c++' }))).toEqual([]);
    expect(slugs(await index.search({ q: 'ferry', page: 1, perPage: 10, tag: '여행 기록' }))).toEqual(['tagged']);
    expect(slugs(await index.search({ q: 'ferry', page: 1, perPage: 10, lang: 'ko' }))).toEqual(['korean']);
    expect(slugs(await index.search({ q: 'ferry', page: 1, perPage: 10, lang: 'en', tag: 'C++' }))).toEqual(['tagged']);
    expect(slugs(await index.search({ q: 'ferry', page: 1, perPage: 10, lang: 'ko', tag: 'C++' }))).toEqual([]);
    expect(slugs(await index.search({ q: '배가', page: 1, perPage: 10 }))).toEqual(['korean']);
    // Every word, each in any text column (a tag's words included); whole terms, never a prefix.
    expect(slugs(await index.search({ q: 'ferry 배', page: 1, perPage: 10 }))).toEqual(['korean']);
    expect(slugs(await index.search({ q: 'Ferry C', page: 1, perPage: 10 }))).toEqual(['tagged']);
    expect(slugs(await index.search({ q: 'ferry heron', page: 1, perPage: 10 }))).toEqual([]);
    expect(slugs(await index.search({ q: 'fer', page: 1, perPage: 10 }))).toEqual([]);
    expect(slugs(await index.search({ q: '여', page: 1, perPage: 10 }))).toEqual([]);
    // The filter tokens (`len`, `lko`, `t…`) are not words of any post.
    expect(slugs(await index.search({ q: 'len', page: 1, perPage: 10 }))).toEqual([]);
    expect(slugs(await index.search({ q: 'lko', page: 1, perPage: 10 }))).toEqual([]);
    expect(slugs(await index.search({ q: `t${Buffer.from('C++').toString('hex')}`, page: 1, perPage: 10 }))).toEqual([]);
    // A query with no word at all finds nothing; its punctuation is never query syntax.
    expect(await index.search({ q: '"*: - & |', page: 1, perPage: 10 })).toEqual({ hits: [], total: 0 });
    expect(slugs(await index.search({ q: "ferry' & 'heron", page: 1, perPage: 10 }))).toEqual([]);
  });

  it('shows only published posts of discoverable blogs, whatever the index holds; remove and prune drop entries and their terms', async () => {
    const { sql, index, entries, entriesWithTerm } = await database();
    const open = await blog(sql, 'open');
    const closed = await blog(sql, 'closed', false);
    await index.upsert([
      await post(sql, open, 'live', { body: 'heron' }),
      await post(sql, open, 'draft', { body: 'heron', status: 'draft' }),
      await post(sql, open, 'soon', { body: 'heron', status: 'scheduled' }),
      await post(sql, closed, 'elsewhere', { body: 'heron' }),
    ]);
    expect(await index.search({ q: 'heron', page: 1, perPage: 10 })).toMatchObject({
      total: 1,
      hits: [{ slug: 'live', blog: { slug: 'open', name: 'Blog open' } }],
    });
    await sql.run('DELETE FROM posts WHERE id = ?', ['open/live']);
    expect((await index.search({ q: 'heron', page: 1, perPage: 10 })).total).toBe(0);
    await index.remove(['open/live', 'open/draft']);
    await index.prune(open, new Set(['open/soon']));
    await index.prune(closed, new Set());
    expect(await entries()).toEqual(['open/soon']);
    expect(await entriesWithTerm('heron')).toBe(1);
  });
}
