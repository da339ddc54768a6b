/**
 * The static site's search ranks as GET /v1/search does (issue 27, A5): the page script's own
 * query code (src/search/static/staticQuery.ts) over the static index's files gives the API's
 * order, page by page, whether a post's postings sit in the term chunks or in the delta, after
 * edits (a new ordinal, an old date), removals and merges, and with equal scores.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SearchIndexCache } from '../../../src/search/searchIndexCache.js';
import { SearchIndexWriter } from '../../../src/search/searchIndexWriter.js';
import type { SearchDocument } from '../../../src/search/searchTypes.js';
import { DELTA_MAX, metaKey } from '../../../src/search/static/staticFormat.js';
import { StaticIndexWriter } from '../../../src/search/static/staticIndexWriter.js';
import { MemorySiteStore } from '../../support/memorySiteStore.js';
import { staticSearch } from '../../support/staticSearchIndex.js';
import { searchDoc } from './docFactory.js';

const BLOG = 'b';

/** The API's order of every match, and one page of it. */
async function apiSlugs(store: MemorySiteStore, q: string, page = { page: 1, perPage: 10_000 }): Promise<{ slugs: string[]; total: number }> {
  const { hits, total } = await new SearchIndexCache(store).search(BLOG, q, page);
  return { slugs: hits.map((h) => h.slug), total };
}

/** The API's index of the live posts, freshly built: the reference order. */
async function apiIndexOf(live: Iterable<SearchDocument>): Promise<MemorySiteStore> {
  const store = new MemorySiteStore();
  await new SearchIndexWriter(store, { workers: 0 }).rebuild(BLOG, [...live]);
  return store;
}

/** A deterministic generator (mulberry32), so a failure names the same posts every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PROSE = [
  '서버를',
  '블로그에',
  '정적',
  '사이트',
  '오늘은',
  '날씨가',
  '글을',
  '썼습니다',
  'cache',
  'edge',
  'deploy',
  'notes',
  'the',
  'and',
  'page',
  '비빔밥',
  '비용이',
];

describe('static search ranking', () => {
  it('ranks as the API does, page by page, with the newest posts still in the delta (비, 시작)', async () => {
    const rand = random(27);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
    const post = (i: number, day: number): SearchDocument => {
      const words = Array.from({ length: 20 + Math.floor(rand() * 300) }, () => pick(PROSE));
      // 비 (rain) and 시작 (start) in some posts, with particles, a few times each.
      if (rand() < 0.3) for (let k = 0; k < 1 + Math.floor(rand() * 4); k++) words.splice(Math.floor(rand() * words.length), 0, pick(['비가', '비를', '비']));
      if (rand() < 0.3)
        for (let k = 0; k < 1 + Math.floor(rand() * 3); k++) words.splice(Math.floor(rand() * words.length), 0, pick(['시작했습니다', '시작을', '시작']));
      return searchDoc({
        id: `p${i}`,
        slug: `post-${i}`,
        title: `${pick(PROSE)} ${i}`,
        body: words.join(' '),
        publishedAt: new Date(Date.UTC(2024, 0, 1) + day * 3_600_000).toISOString(),
      });
    };
    const live = new Map<string, SearchDocument>();
    const store = new MemorySiteStore();
    const statics = new StaticIndexWriter(store, { cacheControl: 'public, max-age=60' });
    const first = Array.from({ length: 500 }, (_, i) => post(i, i));
    for (const doc of first) live.set(doc.id, doc);
    await statics.rebuild(BLOG, first);
    // Then the blog goes on: short new posts that say 비 once (BM25 ranks them high), edits of
    // old posts (a new ordinal in the delta, the old date) and removals.
    for (let i = 500; i < 530; i++) {
      const doc =
        i % 3 === 0
          ? searchDoc({
              id: `p${i}`,
              slug: `post-${i}`,
              title: `비 오는 날 ${i}`,
              body: '비가 와서 시작했습니다.',
              publishedAt: new Date(Date.UTC(2024, 0, 1) + i * 3_600_000).toISOString(),
            })
          : post(i, i);
      live.set(doc.id, doc);
      await statics.upsert(BLOG, [doc]);
    }
    for (const i of [3, 40, 41, 77, 200]) {
      const doc = { ...live.get(`p${i}`)!, body: `비가 옵니다. ${live.get(`p${i}`)!.body.slice(0, 200)}` };
      live.set(doc.id, doc);
      await statics.upsert(BLOG, [doc]);
    }
    for (const i of [5, 60, 505]) {
      live.delete(`p${i}`);
      await statics.remove(BLOG, [`p${i}`]);
    }
    const meta = JSON.parse((await store.get(metaKey(BLOG)))!.body.toString()) as { delta: number; dead: number[] };
    expect(meta.delta).toBeGreaterThan(0);
    expect(meta.dead.length).toBeGreaterThan(0);

    const api = await apiIndexOf(live.values());
    for (const q of ['비', '시작', '비가 시작', '서버 비', 'cache', 'the page', '정적 사이트']) {
      const all = await apiSlugs(api, q);
      expect(all.total, q).toBeGreaterThan(10);
      const fromStatic = await staticSearch(store, BLOG, q, 0, all.total);
      expect(fromStatic, q).toEqual(all);
      for (const page of [1, 2, 3]) {
        const expected = await apiSlugs(api, q, { page, perPage: 10 });
        expect((await staticSearch(store, BLOG, q, (page - 1) * 10, page * 10)).slugs, `${q} page ${page}`).toEqual(expected.slugs);
      }
    }
    // The newest post that says 비 is first on both sides.
    expect((await staticSearch(store, BLOG, '비', 0, 10)).slugs[0]).toBe('post-528');
  });

  it('equals the API order after any history of publishes, edits, removals and merges, equal scores included (property)', async () => {
    const words = ['a', 'b', 'c', '비', '비가', '시작', '서버를'];
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('publish' as const),
        title: fc.array(fc.constantFrom(...words), { maxLength: 2 }),
        body: fc.array(fc.constantFrom(...words), { maxLength: 6 }),
        day: fc.integer({ min: 1, max: 3 }),
      }),
      fc.record({ kind: fc.constant('edit' as const), which: fc.nat(), body: fc.array(fc.constantFrom(...words), { maxLength: 6 }) }),
      fc.record({ kind: fc.constant('remove' as const), which: fc.nat() }),
      fc.record({ kind: fc.constant('maintain' as const) }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 6 }),
        fc.array(op, { maxLength: 25 }),
        fc.array(fc.constantFrom('a', 'b', 'c', '비', '시작'), { minLength: 1, maxLength: 2 }),
        async (initial, ops, query) => {
          const store = new MemorySiteStore();
          const statics = new StaticIndexWriter(store, { cacheControl: 'public, max-age=60' });
          const live = new Map<string, SearchDocument>();
          let n = 0;
          // Few distinct words and short posts: equal scores are common, and dates repeat.
          const make = (title: string, body: string, day: number): SearchDocument => {
            n++;
            return searchDoc({ id: `p${n}`, slug: `s${(n * 7) % 31}-${n}`, title, body, publishedAt: `2024-01-0${day}T00:00:00.000Z` });
          };
          const firsts = Array.from({ length: initial }, (_, i) => make('a', i % 2 ? 'b 비' : '비가 a', 1 + (i % 3)));
          for (const doc of firsts) live.set(doc.id, doc);
          await statics.rebuild(BLOG, firsts);
          for (const o of ops) {
            const ids = [...live.keys()];
            if (o.kind === 'publish') {
              const doc = make(o.title.join(' '), o.body.join(' '), o.day);
              live.set(doc.id, doc);
              await statics.upsert(BLOG, [doc]);
            } else if (o.kind === 'edit' && ids.length > 0) {
              const doc = { ...live.get(ids[o.which % ids.length]!)!, body: o.body.join(' ') };
              live.set(doc.id, doc);
              await statics.upsert(BLOG, [doc]);
            } else if (o.kind === 'remove' && ids.length > 0) {
              const id = ids[o.which % ids.length]!;
              live.delete(id);
              await statics.remove(BLOG, [id]);
            } else if (o.kind === 'maintain') {
              await statics.maintain(BLOG);
            }
          }
          const api = await apiIndexOf(live.values());
          const q = query.join(' ');
          const all = await apiSlugs(api, q);
          expect(await staticSearch(store, BLOG, q, 0, all.total + 1)).toEqual(all);
          for (const page of [1, 2])
            expect((await staticSearch(store, BLOG, q, (page - 1) * 3, page * 3)).slugs).toEqual((await apiSlugs(api, q, { page, perPage: 3 })).slugs);
        },
      ),
      { numRuns: 80 },
    );
  });

  it('merging the delta into the term chunks changes no score and no place', async () => {
    const store = new MemorySiteStore();
    const statics = new StaticIndexWriter(store, { cacheControl: 'public, max-age=60' });
    const docs = Array.from({ length: 10 + DELTA_MAX + 1 }, (_, i) =>
      searchDoc({
        id: `m${i}`,
        slug: `m-${i}`,
        title: `note ${i % 5}`,
        body: `비가 ${'word '.repeat(i % 9)} 시작 ${i % 4 ? '비' : ''}`,
        publishedAt: `2024-02-${String(1 + (i % 20)).padStart(2, '0')}T00:00:00.000Z`,
      }),
    );
    await statics.rebuild(BLOG, docs.slice(0, 10));
    for (const doc of docs.slice(10)) await statics.upsert(BLOG, [doc]);
    const before = await staticSearch(store, BLOG, '비 시작', 0, 100);
    expect((await statics.maintain(BLOG))?.due).toBe(false);
    expect(await staticSearch(store, BLOG, '비 시작', 0, 100)).toEqual(before);
    expect(before).toEqual(await apiSlugs(await apiIndexOf(docs), '비 시작'));
  });
});
