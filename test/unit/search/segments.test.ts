import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { manifestKey, parseManifest, segmentKey } from '../../../src/search/manifest.js';
import { SearchIndexCache } from '../../../src/search/searchIndexCache.js';
import { SearchIndexWriter, type SearchIndexWriterOptions } from '../../../src/search/searchIndexWriter.js';
import type { SearchDocument, SearchResult } from '../../../src/search/searchTypes.js';
import { MemorySiteStore } from '../../support/memorySiteStore.js';
import { searchDoc } from './docFactory.js';

const BLOG = 'notes';
const WORDS = ['server', 'cache', 'sqlite', 'koa', 'deploy', '서버', '블로그', '검색', '비'];
const QUERIES = [...WORDS, 'server cache', 'sqlite koa', '서버 블로그', '비 검색', 'server 서버', 'nothing'];

function setup(options: SearchIndexWriterOptions = {}): { store: MemorySiteStore; cache: SearchIndexCache; writer: SearchIndexWriter } {
  const store = new MemorySiteStore();
  const cache = new SearchIndexCache(store);
  const writer = new SearchIndexWriter(store, { cache, workers: 0, ...options });
  return { store, cache, writer };
}

/** Everything a query shows over all pages, plus the total. */
async function allResults(cache: SearchIndexCache, blog = BLOG): Promise<Record<string, SearchResult>> {
  const out: Record<string, SearchResult> = {};
  for (const q of QUERIES) out[q] = await cache.search(blog, q, { page: 1, perPage: 1000 });
  return out;
}

/** The same live documents indexed at once into a single segment. */
async function referenceResults(docs: readonly SearchDocument[]): Promise<Record<string, SearchResult>> {
  const { cache, writer, store } = setup({ headMaxDocs: 1_000_000 });
  await writer.rebuild(BLOG, docs);
  const manifest = parseManifest('m', (await store.get(manifestKey(BLOG)))!.body);
  expect(manifest.segments.length).toBeLessThanOrEqual(1);
  return allResults(cache);
}

function textOf(words: readonly string[]): string {
  // Particles on Korean words, so stems are part of every comparison.
  return words.map((w, i) => (/[가-힣]/.test(w) && i % 2 === 0 ? `${w}를` : w)).join(' ');
}

describe('segmented index', () => {
  it('finds a post as soon as upsert resolves and rewrites only the head and the manifest', async () => {
    const { store, cache, writer } = setup({ headMaxDocs: 4 });
    for (let i = 0; i < 6; i++) await writer.upsert(BLOG, [searchDoc({ id: `p${i}`, body: `cache ${i}` })]);
    store.resetCalls();
    await writer.upsert(BLOG, [searchDoc({ id: 'p6', body: 'sqlite tuning' })]);
    const written = store.calls.put;
    expect(written).toHaveLength(2);
    expect(written[1]).toBe(manifestKey(BLOG));
    expect(written[0]).toMatch(/_search\/seg-[0-9a-z]+-[0-9a-f]+\.bin$/);
    const { hits, total } = await cache.search(BLOG, 'sqlite', { page: 1, perPage: 10 });
    expect(total).toBe(1);
    expect(hits[0]!.slug).toBe('post-p6');
  });

  it('seals a full head and starts a new one instead of growing it', async () => {
    const { store, writer } = setup({ headMaxDocs: 2, autoMerge: false });
    for (let i = 0; i < 5; i++) await writer.upsert(BLOG, [searchDoc({ id: `p${i}`, body: 'word' })]);
    const manifest = parseManifest('m', (await store.get(manifestKey(BLOG)))!.body);
    expect(manifest.segments.map((s) => s.docs)).toEqual([2, 2, 1]);
    expect(manifest.head).toBe(manifest.segments[2]!.id);
  });

  it('a rebuild from documents read by position holds the posts the reads gave, and no head when its posts all left', async () => {
    const docs = Array.from({ length: 9 }, (_, i) => searchDoc({ id: `p${i}`, body: `cache ${WORDS[i % WORDS.length]}` }));
    // Nine posts with heads of four: sealed groups of 4 and 4, then a head of 1, whose post left
    // the blog between the count and its read.
    const { store, cache, writer } = setup({ headMaxDocs: 4, autoMerge: false });
    await writer.rebuildFrom(BLOG, { count: docs.length, read: async (from, to) => docs.slice(from, to).filter((doc) => doc.id !== 'p8') });
    const manifest = parseManifest('m', (await store.get(manifestKey(BLOG)))!.body);
    expect(manifest.segments.map((s) => s.docs)).toEqual([4, 4]);
    expect(manifest.head).toBeNull();
    expect(await allResults(cache)).toEqual(await referenceResults(docs.slice(0, 8)));
    // The next publish starts a head of its own instead of growing a sealed segment.
    await writer.upsert(BLOG, [searchDoc({ id: 'p9', body: 'sqlite' })]);
    const after = parseManifest('m', (await store.get(manifestKey(BLOG)))!.body);
    expect(after.segments.map((s) => s.docs)).toEqual([4, 4, 1]);
  });

  it("a rebuild writes each new segment before the manifest names it, and leaves only the manifest's segments", async () => {
    const { store, cache, writer } = setup({ headMaxDocs: 2, autoMerge: false });
    for (let i = 0; i < 5; i++) await writer.upsert(BLOG, [searchDoc({ id: `old${i}`, body: 'cache' })]);
    const docs = Array.from({ length: 7 }, (_, i) => searchDoc({ id: `p${i}`, body: `sqlite ${WORDS[i % WORDS.length]}` }));
    store.resetCalls();
    await writer.rebuild(BLOG, docs);
    const manifest = parseManifest('m', (await store.get(manifestKey(BLOG)))!.body);
    const keys = manifest.segments.map((entry) => segmentKey(BLOG, entry));
    // Every segment is in the store before the commit point: a reader never meets a missing one.
    expect(store.calls.put).toEqual([...keys, manifestKey(BLOG)]);
    expect((await store.list(`${BLOG}/_search/`)).sort()).toEqual([...keys, manifestKey(BLOG)].sort());
    for (const entry of manifest.segments) expect((await store.get(segmentKey(BLOG, entry)))!.body.length).toBe(entry.bytes);
    expect(await allResults(cache)).toEqual(await referenceResults(docs));
  });

  it('an edited post is found by its new words only, once', async () => {
    const { cache, writer } = setup({ headMaxDocs: 2, autoMerge: false });
    await writer.upsert(BLOG, [searchDoc({ id: 'a', title: 'Koa middleware' })]);
    await writer.upsert(BLOG, [searchDoc({ id: 'b', title: 'Other' }), searchDoc({ id: 'c', title: 'More' })]);
    await writer.upsert(BLOG, [searchDoc({ id: 'a', title: 'SQLite pragmas' })]);
    expect((await cache.search(BLOG, 'koa', { page: 1, perPage: 10 })).total).toBe(0);
    expect((await cache.search(BLOG, 'sqlite', { page: 1, perPage: 10 })).hits.map((h) => h.title)).toEqual(['SQLite pragmas']);
    expect((await cache.search(BLOG, 'post', { page: 1, perPage: 10 })).total).toBe(0);
  });

  it('unpublished and deleted posts never come back, not after edits of others nor merges', async () => {
    const { cache, writer } = setup({ headMaxDocs: 2, mergeFactor: 2 });
    for (let i = 0; i < 9; i++) await writer.upsert(BLOG, [searchDoc({ id: `p${i}`, body: `deploy number${i}` })]);
    await writer.remove(BLOG, ['p1', 'p4', 'p8']);
    for (let i = 0; i < 4; i++) await writer.upsert(BLOG, [searchDoc({ id: `q${i}`, body: 'unrelated' })]);
    await writer.merge(BLOG);
    await writer.idle();
    const { hits, total } = await cache.search(BLOG, 'deploy', { page: 1, perPage: 50 });
    expect(total).toBe(6);
    expect(hits.map((h) => h.slug).sort()).toEqual(['post-p0', 'post-p2', 'post-p3', 'post-p5', 'post-p6', 'post-p7']);
    for (const gone of ['number1', 'number4', 'number8']) expect((await cache.search(BLOG, gone, { page: 1, perPage: 5 })).total).toBe(0);
  });

  it('merging bounds the number of segments and deletes the merged files', async () => {
    const { store, writer } = setup({ headMaxDocs: 2, mergeFactor: 2 });
    for (let i = 0; i < 40; i++) await writer.upsert(BLOG, [searchDoc({ id: `p${i}`, body: 'word' })]);
    await writer.idle();
    const manifest = parseManifest('m', (await store.get(manifestKey(BLOG)))!.body);
    // 40 posts in tiers of 2, 4, 8, 16 with at most one segment per tier (F - 1), plus the head.
    expect(manifest.segments.length).toBeLessThanOrEqual(6);
    const files = (await store.list(`${BLOG}/_search/seg-`)).sort();
    expect(files).toEqual(manifest.segments.map((s) => segmentKey(BLOG, s)).sort());
  });

  it('a write that fails before its manifest changes nothing, and merge sweeps what it left', async () => {
    const { store, cache, writer } = setup();
    await writer.upsert(BLOG, [searchDoc({ id: 'a', body: 'kept' })]);
    const put = store.put.bind(store);
    store.put = async (key, body, options) => {
      if (key === manifestKey(BLOG)) throw new Error('store unavailable');
      return put(key, body, options);
    };
    await expect(writer.upsert(BLOG, [searchDoc({ id: 'b', body: 'lost' })])).rejects.toThrow('store unavailable');
    store.put = put;
    expect((await store.list(`${BLOG}/_search/seg-`)).length).toBe(2);
    expect((await cache.search(BLOG, 'lost', { page: 1, perPage: 5 })).total).toBe(0);
    expect((await cache.search(BLOG, 'kept', { page: 1, perPage: 5 })).total).toBe(1);
    await writer.merge(BLOG);
    expect((await store.list(`${BLOG}/_search/seg-`)).length).toBe(1);
    expect((await cache.search(BLOG, 'kept', { page: 1, perPage: 5 })).total).toBe(1);
  });

  it('two publishes started together both land (no lost update)', async () => {
    const { cache, writer } = setup({ headMaxDocs: 3 });
    await Promise.all(Array.from({ length: 12 }, (_, i) => writer.upsert(BLOG, [searchDoc({ id: `p${i}`, body: 'together' })])));
    await writer.idle();
    expect((await cache.search(BLOG, 'together', { page: 1, perPage: 50 })).total).toBe(12);
  });

  it('a remove queued behind an upsert of the same post wins', async () => {
    const { cache, writer } = setup();
    await Promise.all([writer.upsert(BLOG, [searchDoc({ id: 'x', body: 'ephemeral' })]), writer.remove(BLOG, ['x'])]);
    expect((await cache.search(BLOG, 'ephemeral', { page: 1, perPage: 5 })).total).toBe(0);
  });

  it('drop deletes every index object of the blog and nothing else', async () => {
    const { store, cache, writer } = setup({ headMaxDocs: 2 });
    await store.put(`${BLOG}/index.html`, '<html>', { contentType: 'text/html', cacheControl: 'no-cache' });
    await store.put(`${BLOG}x/_search/manifest.json`, '{}', { contentType: 'application/json', cacheControl: 'no-cache' });
    for (let i = 0; i < 5; i++) await writer.upsert(BLOG, [searchDoc({ id: `p${i}`, body: 'word' })]);
    await writer.drop(BLOG);
    expect(await store.list(`${BLOG}/_search/`)).toEqual([]);
    expect(await store.list(BLOG)).toEqual([`${BLOG}/index.html`, `${BLOG}x/_search/manifest.json`]);
    expect(await cache.search(BLOG, 'word', { page: 1, perPage: 5 })).toEqual({ hits: [], total: 0 });
  });

  it('a merge running while posts are removed and edited carries those changes over', async () => {
    const { cache, writer } = setup({ headMaxDocs: 2, mergeFactor: 2, autoMerge: false });
    for (let i = 0; i < 8; i++) await writer.upsert(BLOG, [searchDoc({ id: `p${i}`, body: `cache item${i}` })]);
    const merging = writer.merge(BLOG);
    const editing = Promise.all([writer.remove(BLOG, ['p0', 'p5']), writer.upsert(BLOG, [searchDoc({ id: 'p2', body: 'changed' })])]);
    await Promise.all([merging, editing]);
    const { hits } = await cache.search(BLOG, 'cache', { page: 1, perPage: 50 });
    expect(hits.map((h) => h.slug).sort()).toEqual(['post-p1', 'post-p3', 'post-p4', 'post-p6', 'post-p7']);
    expect((await cache.search(BLOG, 'changed', { page: 1, perPage: 5 })).total).toBe(1);
  });

  it('results, totals and order equal those of one freshly built index (property)', async () => {
    const op = fc.oneof(
      {
        arbitrary: fc.record({
          kind: fc.constant('upsert' as const),
          id: fc.integer({ min: 0, max: 14 }),
          words: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 6 }),
          day: fc.integer({ min: 0, max: 3 }),
        }),
        weight: 6,
      },
      { arbitrary: fc.record({ kind: fc.constant('remove' as const), id: fc.integer({ min: 0, max: 14 }) }), weight: 2 },
      { arbitrary: fc.record({ kind: fc.constant('merge' as const) }), weight: 1 },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 30 }), fc.integer({ min: 1, max: 4 }), async (ops, headMaxDocs) => {
        const { cache, writer } = setup({ headMaxDocs, mergeFactor: 2 });
        const live = new Map<string, SearchDocument>();
        for (const o of ops) {
          if (o.kind === 'upsert') {
            // Few distinct days, so ties on score and date exercise the last tie-breakers.
            const doc = searchDoc({
              id: `p${o.id}`,
              title: o.words[0]!,
              body: textOf(o.words),
              tags: o.words.slice(0, 1),
              publishedAt: `2024-01-0${o.day + 1}T00:00:00.000Z`,
            });
            await writer.upsert(BLOG, [doc]);
            live.set(doc.id, doc);
          } else if (o.kind === 'remove') {
            await writer.remove(BLOG, [`p${o.id}`]);
            live.delete(`p${o.id}`);
          } else {
            await writer.merge(BLOG);
          }
        }
        await writer.idle();
        expect(await allResults(cache)).toEqual(await referenceResults([...live.values()]));
      }),
      { numRuns: 40 },
    );
  });

  it('pages slice the same ranking and a page past the end is empty with the right total', async () => {
    const { cache, writer } = setup({ headMaxDocs: 3 });
    for (let i = 0; i < 11; i++) await writer.upsert(BLOG, [searchDoc({ id: `p${i}`, body: `server ${'server '.repeat(i)}` })]);
    const all = await cache.search(BLOG, 'server', { page: 1, perPage: 100 });
    const pages = [];
    for (let page = 1; page <= 3; page++) pages.push(...(await cache.search(BLOG, 'server', { page, perPage: 4 })).hits);
    expect(pages).toEqual(all.hits);
    expect(await cache.search(BLOG, 'server', { page: 4, perPage: 4 })).toEqual({ hits: [], total: 11 });
  });
});
