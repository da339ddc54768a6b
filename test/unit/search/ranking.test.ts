import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SearchIndexCache } from '../../../src/search/searchIndexCache.js';
import { SearchIndexWriter } from '../../../src/search/searchIndexWriter.js';
import { MemorySiteStore } from '../../support/memorySiteStore.js';
import { searchDoc } from './docFactory.js';

const PAGE = { page: 1, perPage: 50 };

async function indexed(docs: Parameters<typeof searchDoc>[0][], headMaxDocs = 3): Promise<MemorySiteStore> {
  const store = new MemorySiteStore();
  const writer = new SearchIndexWriter(store, { workers: 0, headMaxDocs });
  for (const doc of docs) await writer.upsert('b', [searchDoc(doc)]);
  await writer.idle();
  return store;
}

describe('query safety', () => {
  const docs = [
    { id: '1', title: 'C++ templates', body: 'node.js and c' },
    { id: '2', title: 'SQLite tuning', body: 'sqlite sqlites title foo fop serve' },
    { id: '3', title: 'server', body: 'servers served' },
  ];

  it.each(['c++', 'node.js', 'title:foo', 'foo~1', 'foo~2', 'boost^10', '~2', '^10', '*', '+', '-', 'sql*', '*lite', 'se*er', '"quoted"', ':', '+c -sqlite'])(
    'treats %j as plain words, never as lunr syntax',
    async (q) => {
      const store = await indexed(docs);
      for (const executor of ['lunr', 'postings'] as const) {
        const result = await new SearchIndexCache(store, { executor }).search('b', q, PAGE);
        expect(result.total).toBe(result.hits.length);
      }
    },
  );

  it('never expands a word: no wildcard, no edit distance, no prefix', async () => {
    const store = await indexed(docs);
    const cache = new SearchIndexCache(store);
    const slugs = async (q: string): Promise<string[]> => (await cache.search('b', q, PAGE)).hits.map((h) => h.slug).sort();
    expect(await slugs('sql*')).toEqual([]);
    expect(await slugs('*')).toEqual([]);
    expect(await slugs('foo~1')).toEqual([]); // "foo" and "1": no post has "1"
    expect(await slugs('foo')).toEqual(['post-2']); // not fop
    expect(await slugs('serve')).toEqual(['post-2']); // not server, servers, served
    expect(await slugs('title:foo')).toEqual(['post-2']); // the words title AND foo
    expect(await slugs('c++')).toEqual(['post-1']);
    expect(await slugs('-sqlite')).toEqual(['post-2']); // a minus is not NOT
  });
});

describe('ranking', () => {
  it('orders by relevance, then newest publishedAt, then slug', async () => {
    const store = await indexed([
      { id: 'a', slug: 'b-old', body: 'koa', publishedAt: '2024-01-01T00:00:00.000Z' },
      { id: 'b', slug: 'a-new', body: 'koa', publishedAt: '2024-06-01T00:00:00.000Z' },
      { id: 'c', slug: 'c-title', title: 'Koa', body: 'other', publishedAt: '2023-01-01T00:00:00.000Z' },
      { id: 'd', slug: 'a-old', body: 'koa', publishedAt: '2024-01-01T00:00:00.000Z' },
    ]);
    const { hits } = await new SearchIndexCache(store).search('b', 'koa', PAGE);
    expect(hits.map((h) => h.slug)).toEqual(['c-title', 'a-new', 'a-old', 'b-old']);
  });

  it('requires every word (AND) and returns the stored fields of each hit', async () => {
    const store = await indexed([
      {
        id: 'a',
        slug: 'both',
        title: 'Server cache',
        metaDescription: 'About caches',
        tags: ['ops'],
        body: '',
        createdAt: '2024-01-01T00:00:00.000Z',
        publishedAt: '2024-01-02T00:00:00.000Z',
        url: 'https://x.example/both/',
      },
      { id: 'b', slug: 'one', title: 'Server', body: '' },
    ]);
    const { hits, total } = await new SearchIndexCache(store).search('b', 'cache server', PAGE);
    expect(total).toBe(1);
    expect(hits).toEqual([
      {
        slug: 'both',
        title: 'Server cache',
        metaDescription: 'About caches',
        tags: ['ops'],
        createdAt: '2024-01-01T00:00:00.000Z',
        publishedAt: '2024-01-02T00:00:00.000Z',
        url: 'https://x.example/both/',
      },
    ]);
  });

  it('answers an empty result for a query with no words', async () => {
    const store = await indexed([{ id: 'a', body: 'word' }]);
    for (const q of ['', '   ', '!!!', '🎉']) expect(await new SearchIndexCache(store).search('b', q, PAGE)).toEqual({ hits: [], total: 0 });
  });

  it('rejects a page or page size that is not a positive integer', async () => {
    const store = await indexed([{ id: 'a', body: 'word' }]);
    const cache = new SearchIndexCache(store);
    await expect(cache.search('b', 'word', { page: 0, perPage: 10 })).rejects.toThrow(RangeError);
    await expect(cache.search('b', 'word', { page: 1, perPage: 1.5 })).rejects.toThrow(RangeError);
  });

  it('lunr Index#query and the postings executor find the same posts in the same order (property)', async () => {
    const words = ['a', 'b', 'c', '서버', '블로그', 'd1'];
    const docArb = fc.record({
      title: fc.array(fc.constantFrom(...words), { maxLength: 3 }),
      body: fc.array(fc.constantFrom(...words, '서버를', '블로그에서'), { maxLength: 12 }),
      day: fc.integer({ min: 1, max: 3 }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(docArb, { minLength: 1, maxLength: 12 }),
        fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 3 }),
        async (docs, query) => {
          const store = await indexed(
            docs.map((d, i) => ({ id: `p${i}`, title: d.title.join(' '), body: d.body.join(' '), publishedAt: `2024-01-0${d.day}T00:00:00.000Z` })),
            2,
          );
          const q = query.join(' ');
          const viaLunr = await new SearchIndexCache(store, { executor: 'lunr' }).search('b', q, PAGE);
          const viaPostings = await new SearchIndexCache(store, { executor: 'postings' }).search('b', q, PAGE);
          expect(viaLunr).toEqual(viaPostings);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('executors agree when postings hold tombstones and one word is rare (lunr gets postings cut to the rarest word)', async () => {
    // 'a' is in most posts, 'z' in few: the lunr executor hands lunr the posting of the rarest
    // live word whole and the others cut down to its posts; deleted posts must never count.
    const docArb = fc.record({
      body: fc.array(fc.constantFrom('a', 'a', 'a', 'b', 'b', 'c', 'z'), { maxLength: 8 }),
      removed: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(docArb, { minLength: 1, maxLength: 14 }),
        fc.array(fc.constantFrom('a', 'b', 'c', 'z'), { minLength: 1, maxLength: 3 }),
        async (docs, query) => {
          const store = new MemorySiteStore();
          const writer = new SearchIndexWriter(store, { workers: 0, headMaxDocs: 2, autoMerge: false });
          for (const [i, d] of docs.entries())
            await writer.upsert('b', [searchDoc({ id: `p${i}`, slug: `p${i}`, title: `post ${i}`, body: d.body.join(' ') })]);
          const removed = docs.flatMap((d, i) => (d.removed ? [`p${i}`] : []));
          if (removed.length > 0) await writer.remove('b', removed);
          await writer.idle();
          const q = query.join(' ');
          const viaLunr = await new SearchIndexCache(store, { executor: 'lunr' }).search('b', q, PAGE);
          const viaPostings = await new SearchIndexCache(store, { executor: 'postings' }).search('b', q, PAGE);
          expect(viaLunr).toEqual(viaPostings);
          const expected = docs.flatMap((d, i) => (!d.removed && query.every((w) => d.body.includes(w)) ? [`p${i}`] : []));
          expect(viaLunr.hits.map((h) => h.slug).sort()).toEqual(expected.sort());
        },
      ),
      { numRuns: 60 },
    );
  });
  it('segments opened lazily from the store answer as the decoded segments the writer keeps (property)', async () => {
    const words = ['a', 'b', 'c', 'z', '서버', '블로그'];
    const docArb = fc.record({
      title: fc.array(fc.constantFrom(...words), { maxLength: 2 }),
      body: fc.array(fc.constantFrom(...words, '서버를'), { maxLength: 10 }),
      day: fc.integer({ min: 1, max: 3 }),
      removed: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(docArb, { minLength: 1, maxLength: 14 }),
        fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 1, max: 3 }),
        async (docs, query, perPage) => {
          const store = new MemorySiteStore();
          // The writer's own cache holds what it wrote decoded; a new cache opens the stored segments.
          const written = new SearchIndexCache(store);
          const writer = new SearchIndexWriter(store, { workers: 0, headMaxDocs: 2, cache: written });
          for (const [i, d] of docs.entries()) {
            await writer.upsert('b', [
              searchDoc({ id: `p${i}`, slug: `p${i}`, title: d.title.join(' '), body: d.body.join(' '), publishedAt: `2024-01-0${d.day}T00:00:00.000Z` }),
            ]);
          }
          const removed = docs.flatMap((d, i) => (d.removed ? [`p${i}`] : []));
          if (removed.length > 0) await writer.remove('b', removed);
          await writer.idle();
          const q = query.join(' ');
          const opened = new SearchIndexCache(store);
          for (let page = 1; page <= 3; page++) {
            expect(await opened.search('b', q, { page, perPage })).toEqual(await written.search('b', q, { page, perPage }));
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('matchAll', () => {
  it('answers through lunr and leaves lunr.MatchData and lunr.FieldRef as it found them for every other use of lunr', async () => {
    const lunr = (await import('lunr')).default;
    const { matchAll } = await import('../../../src/search/lunrSetup.js');
    const original = lunr.MatchData;
    const originalFieldRef = (lunr as unknown as { FieldRef: unknown }).FieldRef;
    const found = matchAll(
      [
        { term: 'rain', termIndex: 0, ordinals: [1, 3, 4] },
        { term: 'day', termIndex: 1, ordinals: [0, 3, 4, 7] },
      ],
      8,
    );
    expect(found).toEqual([3, 4]);
    expect(lunr.MatchData).toBe(original);
    expect((lunr as unknown as { FieldRef: unknown }).FieldRef).toBe(originalFieldRef);
    // lunr's own search still reports where terms matched.
    const index = lunr(function () {
      this.field('text');
      this.metadataWhitelist = ['position'];
      this.add({ id: 'a', text: 'rain today' });
    });
    expect(index.search('rain')[0]!.matchData.metadata).toHaveProperty('rain.text.position');
  });
});
