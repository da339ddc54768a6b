/**
 * The discovery index (src/db/discoveryRepo.ts) on a real SQLite file: newest first (posts of the
 * same second in the order they were indexed), the 1,000-result reach, filters as index tokens,
 * and what the live rows hide whatever the index holds.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../../src/db/database.js';
import { DiscoveryRepo } from '../../../src/db/discoveryRepo.js';
import { SqliteClient } from '../../../src/db/sql/sqliteClient.js';
import { MAX_DISCOVERY_RESULTS, type DiscoveryDocument } from '../../../src/search/discovery/ports.js';
import { testTempDir } from '../../support/tempDir.js';

const NOW = '2026-03-01T00:00:00.000Z';

function database(): { db: Db; repo: DiscoveryRepo; blog: (slug: string, discoverable?: boolean) => string } {
  const db = openDatabase(join(testTempDir('folio-discovery-'), 'folio.db'));
  db.prepare(`INSERT INTO accounts (id, plan, created_at, updated_at) VALUES ('a', 'enterprise', ?, ?)`).run(NOW, NOW);
  const blog = (slug: string, discoverable = true): string => {
    db.prepare(`INSERT INTO blogs (id, account_id, slug, name, discoverable, created_at, updated_at) VALUES (?, 'a', ?, ?, ?, ?, ?)`).run(
      slug,
      slug,
      `Blog ${slug}`,
      discoverable ? 1 : 0,
      NOW,
      NOW,
    );
    return slug;
  };
  return { db, repo: new DiscoveryRepo(new SqliteClient(db)), blog };
}

function post(db: Db, blogId: string, slug: string, fields: Partial<DiscoveryDocument> & { status?: string } = {}): DiscoveryDocument {
  const publishedAt = fields.publishedAt ?? NOW;
  const tags = fields.tags ?? [];
  db.prepare(
    `INSERT INTO posts (id, blog_id, title, slug, content_md, content_html, meta_description, tags, status, published_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, '', '', '', ?, ?, ?, ?, ?)`,
  ).run(`${blogId}/${slug}`, blogId, fields.title ?? slug, slug, JSON.stringify(tags), fields.status ?? 'published', publishedAt, NOW, NOW);
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

describe('DiscoveryRepo', async () => {
  it('orders newest first; posts of the same second in the order they were indexed, an edit moving to the front of its second', async () => {
    const { db, repo, blog } = database();
    const b = blog('b');
    const a1 = post(db, b, 'a1', { body: 'otter', publishedAt: '2026-01-01T00:00:00.100Z' });
    const a2 = post(db, b, 'a2', { body: 'otter', publishedAt: '2026-01-01T00:00:00.900Z' });
    const old = post(db, b, 'old', { body: 'otter', publishedAt: '2020-01-01T00:00:00.000Z' });
    const late = post(db, b, 'late', { body: 'otter', publishedAt: '2026-02-01T00:00:00.000Z' });
    await repo.upsert([a1, a2, old, late]);
    expect(slugs(await repo.search({ q: 'otter', page: 1, perPage: 10 }))).toEqual(['late', 'a2', 'a1', 'old']);
    await repo.upsert([a1]);
    expect(slugs(await repo.search({ q: 'otter', page: 1, perPage: 10 }))).toEqual(['late', 'a1', 'a2', 'old']);
  });

  it('reaches the first 1,000 matches: total stops there and pages past them are empty', async () => {
    const { db, repo, blog } = database();
    const b = blog('many');
    const docs: DiscoveryDocument[] = [];
    for (let i = 0; i < MAX_DISCOVERY_RESULTS + 5; i++) {
      docs.push(post(db, b, `p${i}`, { title: 'common word', publishedAt: new Date(Date.UTC(2025, 0, 1) + i * 1000).toISOString() }));
    }
    await repo.upsert(docs);
    const first = await repo.search({ q: 'common', page: 1, perPage: 50 });
    expect(first.total).toBe(MAX_DISCOVERY_RESULTS);
    expect(first.hits[0]!.slug).toBe(`p${MAX_DISCOVERY_RESULTS + 4}`);
    const last = await repo.search({ q: 'common', page: MAX_DISCOVERY_RESULTS / 50, perPage: 50 });
    expect(last.hits).toHaveLength(50);
    expect(last.hits.at(-1)!.slug).toBe('p5');
    expect((await repo.search({ q: 'common', page: MAX_DISCOVERY_RESULTS / 50 + 1, perPage: 50 })).hits).toEqual([]);
    expect(await repo.search({ q: 'common', page: 1_000_000, perPage: 50 })).toEqual({ hits: [], total: MAX_DISCOVERY_RESULTS });
  });

  it('matches words in the text columns only; tag and language filters are exact and never matched by words', async () => {
    const { db, repo, blog } = database();
    const b = blog('b');
    await repo.upsert([
      post(db, b, 'tagged', { title: 'Ferry', tags: ['C++', '여행 기록'], lang: 'en' }),
      post(db, b, 'korean', { title: '배를 탔다', body: 'ferry', lang: 'ko' }),
    ]);
    expect(slugs(await repo.search({ q: 'ferry', page: 1, perPage: 10, tag: 'C++' }))).toEqual(['tagged']);
    expect(slugs(await repo.search({ q: 'ferry', page: 1, perPage: 10, tag: 'c++' }))).toEqual([]);
    expect(slugs(await repo.search({ q: 'ferry', page: 1, perPage: 10, tag: '여행 기록' }))).toEqual(['tagged']);
    expect(slugs(await repo.search({ q: 'ferry', page: 1, perPage: 10, lang: 'ko' }))).toEqual(['korean']);
    expect(slugs(await repo.search({ q: '배가', page: 1, perPage: 10 }))).toEqual(['korean']);
    // The filter tokens (`len`, `lko`, `t…`) are not words of any post.
    expect(slugs(await repo.search({ q: 'len', page: 1, perPage: 10 }))).toEqual([]);
    expect(slugs(await repo.search({ q: 'lko', page: 1, perPage: 10 }))).toEqual([]);
    expect(slugs(await repo.search({ q: `t${Buffer.from('C++').toString('hex')}`, page: 1, perPage: 10 }))).toEqual([]);
  });

  it('shows only published posts of discoverable blogs, whatever the index holds; remove and prune drop entries and their terms', async () => {
    const { db, repo, blog } = database();
    const open = blog('open');
    const closed = blog('closed', false);
    await repo.upsert([
      post(db, open, 'live', { body: 'heron' }),
      post(db, open, 'draft', { body: 'heron', status: 'draft' }),
      post(db, open, 'soon', { body: 'heron', status: 'scheduled' }),
      post(db, closed, 'elsewhere', { body: 'heron' }),
    ]);
    expect(await repo.search({ q: 'heron', page: 1, perPage: 10 })).toMatchObject({
      total: 1,
      hits: [{ slug: 'live', blog: { slug: 'open', name: 'Blog open' } }],
    });
    db.prepare('DELETE FROM posts WHERE id = ?').run('open/live');
    expect((await repo.search({ q: 'heron', page: 1, perPage: 10 })).total).toBe(0);
    await repo.remove(['open/live', 'open/draft']);
    await repo.prune(open, new Set(['open/soon']));
    await repo.prune(closed, new Set());
    expect(db.prepare('SELECT post_id FROM discovery_posts').all()).toEqual([{ post_id: 'open/soon' }]);
    expect(db.prepare(`SELECT COUNT(*) AS n FROM discovery_terms WHERE discovery_terms MATCH '"heron"'`).get()).toEqual({ n: 1 });
  });
});
