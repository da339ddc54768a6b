/**
 * The static search index the /search/ page reads (issue 11, item 3): the same result sets as
 * the API's search on the hand-judged relevance suite, and incremental writes (publish, edit,
 * unpublish, delete, compaction) that leave exactly what a fresh build of the same posts says.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SearchIndexCache } from '../../../src/search/searchIndexCache.js';
import { SearchIndexWriter } from '../../../src/search/searchIndexWriter.js';
import { listedDocsOf } from '../../../src/search/segmentData.js';
import type { SearchDocument } from '../../../src/search/searchTypes.js';
import {
  chunkCountFor,
  chunkOf,
  DELTA_CHUNKS,
  DELTA_MAX,
  DELTA_MAX_BIG,
  deltaChunksFor,
  deltaChunksOf,
  deltaKey,
  deltaMax,
  FRAGMENT_SIZE,
  fragmentKey,
  LENGTH_BLOCK,
  metaKey,
  stateKey,
} from '../../../src/search/static/staticFormat.js';
import { StaticIndexWriter } from '../../../src/search/static/staticIndexWriter.js';
import { queryTerms } from '../../../src/search/tokenize.js';
import { FsSiteStore } from '../../../src/storage/fsSiteStore.js';
import { JUDGMENTS } from '../../fixtures/search/relevanceJudgments.js';
import { RELEVANCE_POSTS } from '../../fixtures/search/relevancePosts.js';
import { matchingPaths, readStaticIndex, staticSearch } from '../../support/staticSearchIndex.js';
import { searchDoc } from './docFactory.js';
import { MemorySiteStore } from '../../support/memorySiteStore.js';
import { StaticSearchSync } from '../../../src/publish/stages/staticSearchSync.js';
import type { BlogWithDomain } from '../../../src/domain/blog.js';

const dirs: string[] = [];
function store(): FsSiteStore {
  const dir = mkdtempSync(join(tmpdir(), 'folio-static-search-'));
  dirs.push(dir);
  return new FsSiteStore({ root: dir });
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const writer = (s: FsSiteStore) => new StaticIndexWriter(s, { cacheControl: 'public, max-age=60' });
async function freshOf(docs: readonly SearchDocument[]): Promise<FsSiteStore> {
  const s = store();
  await writer(s).rebuild('merge', docs);
  return s;
}
const pathOf = (url: string) => new URL(url).pathname;

describe('the static search index', () => {
  it('joins the API index segments of the same posts instead of indexing them again, and writes nothing when they do not match', async () => {
    const docs = Array.from({ length: 300 }, (_, i) =>
      searchDoc({
        id: `s${i}`,
        title: `word${i % 11} title`,
        body: `body ${i % 17} 검색`,
        publishedAt: new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString(),
      }),
    );
    const text = async (s: FsSiteStore, key: string) => (await s.get(key))!.body.toString('utf8').replace(/"revision":"[0-9a-f]+"/, '"revision":"-"');
    const filesOf = async (s: FsSiteStore) => Promise.all((await s.list('j/search/')).sort().map(async (key) => [key, await text(s, key)]));

    const plain = store();
    await writer(plain).rebuild('j', docs);
    const api = store();
    const built = await new SearchIndexWriter(api, { workers: 0 }).rebuild('j', docs);
    expect(built.length).toBeGreaterThan(1);
    const joined = store();
    // The posts without their text: the segments hold what the index needs of it.
    const listed = docs.map(({ body: _body, code: _code, ...rest }) => rest);
    expect(listedDocsOf(built)).toEqual(listed);
    expect(await writer(joined).rebuildFromSegments('j', listedDocsOf(built), built)).not.toBeNull();
    expect(await filesOf(joined)).toEqual(await filesOf(plain));

    // Segments holding the posts in another order are not used, and nothing is written.
    const reversed = await new SearchIndexWriter(store(), { workers: 0 }).rebuild('j', [...docs].reverse());
    const unused = store();
    expect(await writer(unused).rebuildFromSegments('j', listed, reversed)).toBeNull();
    expect(await unused.list('j/')).toEqual([]);

    // Segments in the right order are taken as they are: built from other text, the index says so.
    const other = await new SearchIndexWriter(store(), { workers: 0 }).rebuild(
      'j',
      docs.map((d) => ({ ...d, title: 'zebra', body: '' })),
    );
    const taken = store();
    await writer(taken).rebuildFromSegments('j', listed, other);
    const index = await readStaticIndex(taken, 'j');
    expect(matchingPaths(index, queryTerms('zebra'))).toHaveLength(300);
  });

  it('rebuilt through StaticSearchSync, reads every post again when the segments do not join', async () => {
    const docs = Array.from({ length: 40 }, (_, i) => searchDoc({ id: `y${i}`, title: `word${i % 5} title`, body: `body ${i % 7} 검색` }));
    const listed = docs.map(({ body: _body, code: _code, ...rest }) => rest);
    const plain = store();
    await writer(plain).rebuild('j', docs);
    const files = async (s: FsSiteStore) =>
      Promise.all(
        (await s.list('j/search/'))
          .sort()
          .map(async (key) => [key, (await s.get(key))!.body.toString('utf8').replace(/"revision":"[0-9a-f]+"/, '"revision":"-"')]),
      );
    const blog = { slug: 'j' } as BlogWithDomain;
    for (const order of ['joined', 'reversed'] as const) {
      const built = await new SearchIndexWriter(store(), { workers: 0 }).rebuild('j', order === 'joined' ? docs : [...docs].reverse());
      const target = store();
      let reads = 0;
      const sync = new StaticSearchSync({
        index: writer(target),
        onBackgroundChange: async () => {},
        allDocs: async () => {
          reads += 1;
          return docs;
        },
        onBackgroundError: (err) => {
          throw err;
        },
      });
      await sync.rebuild(blog, { listed, built });
      expect(await files(target), order).toEqual(await files(plain));
      expect(reads, order).toBe(order === 'joined' ? 0 : 1);
    }
  });

  it('is the same whether a rebuild indexes the posts in one piece or in many joined pieces', async () => {
    const single = store();
    const pieces = store();
    await new StaticIndexWriter(single, { cacheControl: 'public, max-age=60', parallel: { workers: 0, pieceDocs: 1_000_000 } }).rebuild('p', RELEVANCE_POSTS);
    await new StaticIndexWriter(pieces, { cacheControl: 'public, max-age=60', parallel: { workers: 0, pieceDocs: 3 } }).rebuild('p', RELEVANCE_POSTS);
    // Each commit names itself, and the id blocks it stores, with a random revision; everything else is byte for byte the same.
    const untagged = (key: string) => key.replace(/-[0-9a-f]{16}\.txt$/, '-tag.txt');
    const keys = (await single.list('p/')).sort();
    expect(keys.length).toBeGreaterThan(2);
    expect((await pieces.list('p/')).sort().map(untagged)).toEqual(keys.map(untagged));
    const text = async (s: FsSiteStore, key: string) => (await s.get(key))!.body.toString('utf8').replace(/"[0-9a-f]{16}"/g, '"-"');
    const piecesKeys = (await pieces.list('p/')).sort();
    for (const [i, key] of keys.entries()) expect(await text(pieces, piecesKeys[i]!), key).toBe(await text(single, key));
  });

  it('finds the same posts as the API search for every query of the relevance suite', async () => {
    const s = store();
    const statics = writer(s);
    // Built the way a blog grows: a first batch, then one post at a time.
    await statics.rebuild('rel', RELEVANCE_POSTS.slice(0, 12));
    for (const post of RELEVANCE_POSTS.slice(12)) await statics.upsert('rel', [post]);
    const index = await readStaticIndex(s, 'rel');

    const api = new SearchIndexWriter(s, { workers: 0 });
    await api.rebuild('rel', RELEVANCE_POSTS);
    const cache = new SearchIndexCache(s);
    const bySlug = new Map(RELEVANCE_POSTS.map((p) => [p.slug, pathOf(p.url)]));
    for (const { q, relevant } of JUDGMENTS) {
      const { hits } = await cache.search('rel', q, { page: 1, perPage: 100 });
      const fromApi = hits.map((h) => pathOf(h.url)).sort();
      expect(matchingPaths(index, queryTerms(q)), q).toEqual(fromApi);
      expect(fromApi, q).toEqual(relevant.map((slug) => bySlug.get(slug)!).sort());
    }
  });

  it('after publishes, edits, unpublishes and deletes holds what a fresh build of the live posts holds', async () => {
    const s = store();
    const statics = writer(s);
    const live = new Map<string, SearchDocument>();
    const put = async (doc: SearchDocument) => {
      live.set(doc.id, doc);
      expect(await statics.upsert('inc', [doc])).not.toBeNull();
    };
    const first = RELEVANCE_POSTS.slice(0, 5);
    for (const doc of first) live.set(doc.id, doc);
    await statics.rebuild('inc', first);
    for (const doc of RELEVANCE_POSTS.slice(5, 25)) await put(doc);
    // Edits: new words in, old words out.
    await put({ ...RELEVANCE_POSTS[3]!, title: 'Renamed entirely', body: 'zebra crossing 얼룩말이 지나갑니다' });
    await put({ ...RELEVANCE_POSTS[10]!, tags: ['새태그'], metaDescription: 'changed' });
    // Unpublish and delete both reach the index as a removal.
    for (const id of [RELEVANCE_POSTS[0]!.id, RELEVANCE_POSTS[7]!.id, 'never-indexed']) {
      live.delete(id);
      expect(await statics.remove('inc', [id])).not.toBeNull();
    }

    const fresh = store();
    await writer(fresh).rebuild('inc', [...live.values()]);
    const incremental = await readStaticIndex(s, 'inc');
    expect(incremental).toEqual(await readStaticIndex(fresh, 'inc'));
    expect(incremental.postings['zebra']).toEqual({ [pathOf(RELEVANCE_POSTS[3]!.url)]: 1 });
    expect(incremental.postings['얼룩말']).toBeDefined();
    expect(incremental.entries[pathOf(RELEVANCE_POSTS[0]!.url)]).toBeUndefined();
  });

  it('writes the same delta files from what it holds in memory as a writer that reads them back each time', async () => {
    const [held, read] = [store(), store()];
    const heldWriter = writer(held);
    const first = RELEVANCE_POSTS.slice(0, 5);
    await heldWriter.rebuild('d', first);
    await writer(read).rebuild('d', first);
    const bodies = async (s: FsSiteStore) =>
      Promise.all(Array.from({ length: DELTA_CHUNKS }, async (_, chunk) => (await s.getBody(deltaKey('d', chunk)))?.toString('utf8') ?? null));
    const steps: SearchDocument[] = [
      ...RELEVANCE_POSTS.slice(5, 15),
      { ...RELEVANCE_POSTS[6]!, title: 'Retitled', body: 'entirely new words 새로운 낱말' }, // an edit: its old postings die
      ...RELEVANCE_POSTS.slice(15, 20),
    ];
    for (const doc of steps) {
      await heldWriter.upsert('d', [doc]);
      await writer(read).upsert('d', [doc]); // a new writer each time: nothing held, every file read back
      expect(await bodies(held)).toEqual(await bodies(read));
    }
    expect((await bodies(held)).some((body) => body?.includes('새로운'))).toBe(true);
  });

  it('a writer keeps its last state only while meta.json names it: another process’s write in between is not lost', async () => {
    const s = store();
    const server = writer(s);
    const cli = writer(s);
    const docs = RELEVANCE_POSTS.slice(0, 8);
    await server.rebuild('two', docs.slice(0, 4));
    await server.upsert('two', [docs[4]!]);
    // Another writer on the same store (the CLI's process): the server's kept state is now stale.
    await cli.upsert('two', [docs[5]!]);
    await cli.remove('two', [docs[0]!.id]);
    await server.upsert('two', [docs[6]!]);
    await server.upsert('two', [docs[7]!]);
    const fresh = store();
    await writer(fresh).rebuild('two', docs.slice(1));
    expect(await readStaticIndex(s, 'two')).toEqual(await readStaticIndex(fresh, 'two'));
  });

  it('keeps each post’s length in the lengths file of its ordinal, across a file boundary, as a fresh build does', async () => {
    // Lengths differ from post to post (1 to 7 words), so a length read from the wrong place shows.
    const docs = Array.from({ length: LENGTH_BLOCK + 8 }, (_, i) =>
      searchDoc({
        id: `l${i}`,
        title: `len ${'word '.repeat(i % 7)}`,
        body: i % 3 === 0 ? 'common rare' : 'common',
        publishedAt: new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString(),
      }),
    );
    const s = store();
    const w = writer(s);
    await w.rebuild('lengths', docs.slice(0, LENGTH_BLOCK - 4));
    // Eight new posts hand out ordinals on both sides of the boundary; an edit gives one a new one.
    for (const doc of docs.slice(LENGTH_BLOCK - 4)) await w.upsert('lengths', [doc]);
    await w.upsert('lengths', [{ ...docs[5]!, body: 'common rare edited' }]);
    expect((await s.list('lengths/search/l/')).sort()).toEqual(['lengths/search/l/0.json', 'lengths/search/l/1.json']);
    const fresh = store();
    await writer(fresh).rebuild('lengths', [...docs.slice(0, 5), ...docs.slice(6), { ...docs[5]!, body: 'common rare edited' }]);
    // readStaticIndex checks each live posting's length file against its fragment.
    expect(await readStaticIndex(s, 'lengths')).toEqual(await readStaticIndex(fresh, 'lengths'));
    for (const q of ['common', 'rare', 'len word', 'edited']) {
      expect(await staticSearch(s, 'lengths', q, 0, 20)).toEqual(await staticSearch(fresh, 'lengths', q, 0, 20));
    }
  });

  // Format 1 had no lengths to score by; format 2 kept them in every posting, and a reader of
  // format 3 would take its lengths for tfs.
  it.each([1, 2])('does not read an index of format %i: it counts as missing and is rebuilt', async (version) => {
    const s = store();
    const w = writer(s);
    await w.rebuild('old', RELEVANCE_POSTS.slice(0, 6));
    expect(await w.exists('old')).toBe(true);
    // As that format wrote them (format 1: no total length in meta.json or the state).
    for (const key of [metaKey('old'), stateKey('old')]) {
      const { length, ...rest } = JSON.parse((await s.get(key))!.body.toString('utf8')) as Record<string, unknown>;
      const stored = version === 1 ? { ...rest, version } : { ...rest, length, version };
      await s.put(key, JSON.stringify(stored), { contentType: 'application/json', cacheControl: 'private, no-cache' });
    }
    const restarted = writer(s);
    expect(await restarted.exists('old')).toBe(false);
    expect(await restarted.upsert('old', [RELEVANCE_POSTS[6]!])).toBeNull();
    expect(await restarted.remove('old', [RELEVANCE_POSTS[0]!.id])).toBeNull();
    await restarted.rebuild('old', RELEVANCE_POSTS.slice(0, 7));
    expect(await restarted.exists('old')).toBe(true);
    const fresh = store();
    await writer(fresh).rebuild('old', RELEVANCE_POSTS.slice(0, 7));
    expect(await readStaticIndex(s, 'old')).toEqual(await readStaticIndex(fresh, 'old'));
  });

  it('writes a lengths file from what it last wrote, without reading it back, while its state is current', async () => {
    const s = new MemorySiteStore();
    const w = new StaticIndexWriter(s, { cacheControl: 'public, max-age=60' });
    await w.rebuild('held', RELEVANCE_POSTS.slice(0, 4));
    await w.upsert('held', [RELEVANCE_POSTS[4]!]);
    s.resetCalls();
    await w.upsert('held', [RELEVANCE_POSTS[5]!]);
    expect(s.calls.get).not.toContain('held/search/l/0.json');
    const fresh = new MemorySiteStore();
    await new StaticIndexWriter(fresh, { cacheControl: 'public, max-age=60' }).rebuild('held', RELEVANCE_POSTS.slice(0, 6));
    // Every live posting's length checked against its fragment, and the same as a fresh build's.
    expect(await readStaticIndex(s, 'held')).toEqual(await readStaticIndex(fresh, 'held'));
  });

  it('a warmed writer (a restarted server) reads the state once, before the first write, and not again while it is current', async () => {
    const s = new MemorySiteStore();
    await new StaticIndexWriter(s, { cacheControl: 'public, max-age=60' }).rebuild('warm', RELEVANCE_POSTS.slice(0, 4));
    const restarted = new StaticIndexWriter(s, { cacheControl: 'public, max-age=60' });
    await restarted.warm('warm');
    expect(s.calls.get.filter((key) => key === stateKey('warm'))).toHaveLength(1);
    s.resetCalls();
    await restarted.upsert('warm', [RELEVANCE_POSTS[4]!]);
    await restarted.remove('warm', [RELEVANCE_POSTS[0]!.id]);
    expect(s.calls.get).not.toContain(stateKey('warm'));
    expect(s.calls.get).toContain(metaKey('warm'));
  });

  it('keeps the states of the 16 blogs written last: an older blog reads its state again on its next write, and loses nothing', async () => {
    const s = new MemorySiteStore();
    const w = new StaticIndexWriter(s, { cacheControl: 'public, max-age=60' });
    const blogs = Array.from({ length: 17 }, (_, i) => `b${i}`);
    for (const blog of blogs) await w.rebuild(blog, RELEVANCE_POSTS.slice(0, 3));
    s.resetCalls();
    // b1 is still held; b0 was the least recently written of 17.
    await w.upsert('b1', [RELEVANCE_POSTS[3]!]);
    expect(s.calls.get).not.toContain(stateKey('b1'));
    await w.upsert('b0', [RELEVANCE_POSTS[3]!]);
    expect(s.calls.get).toContain(stateKey('b0'));
    const fresh = new MemorySiteStore();
    await new StaticIndexWriter(fresh, { cacheControl: 'public, max-age=60' }).rebuild('b0', RELEVANCE_POSTS.slice(0, 4));
    expect(await readStaticIndex(s, 'b0')).toEqual(await readStaticIndex(fresh, 'b0'));
  });

  it('a publish rewrites only the delta chunks of the post’s terms, its fragment and meta.json', async () => {
    const s = store();
    const statics = writer(s);
    await statics.rebuild('few', RELEVANCE_POSTS.slice(0, 30));
    // The first post after a rebuild starts the delta: all its files, so none the browser asks for is missing.
    const first = (await statics.upsert('few', [searchDoc({ id: 'first', title: 'Opening', body: 'a first word' })]))!;
    expect(first.written.filter((k) => k.includes('/search/x/')).sort()).toEqual(Array.from({ length: DELTA_CHUNKS }, (_, c) => deltaKey('few', c)).sort());
    const doc = searchDoc({ id: 'new', title: 'Quiet harbour', body: 'lanterns over the harbour at dusk' });
    const change = (await statics.upsert('few', [doc]))!;
    const expected = new Set(['quiet', 'harbour', 'lanterns', 'over', 'the', 'at', 'dusk'].map((t) => deltaKey('few', chunkOf(t, DELTA_CHUNKS))));
    expect(new Set(change.written.filter((k) => k.includes('/search/x/')))).toEqual(expected);
    expect(change.written.filter((k) => k.includes('/search/t/'))).toEqual([]);
    expect(change.written).toContain(metaKey('few'));
    expect(change.written.filter((k) => k.includes('/search/d/'))).toEqual([fragmentKey('few', Math.floor(31 / FRAGMENT_SIZE))]);
    // The writer's own state is never among what readers are told about.
    expect(change.written).not.toContain(stateKey('few'));
    expect(JSON.parse((await s.get(metaKey('few')))!.body.toString())).toMatchObject({ delta: DELTA_CHUNKS, docs: 32 });
  });

  it('leaves the merge of a delta past DELTA_MAX posts to maintain, which reads as a fresh build', async () => {
    const s = store();
    const statics = writer(s);
    const docs = Array.from({ length: 10 + DELTA_MAX + 1 }, (_, i) =>
      searchDoc({ id: `m${i}`, title: `Harbour note ${i}`, body: `word${i % 7} lantern${i % 3} 항구에서 ${i}` }),
    );
    await statics.rebuild('merge', docs.slice(0, 10));
    const dues: boolean[] = [];
    for (const doc of docs.slice(10)) dues.push((await statics.upsert('merge', [doc]))!.due === true);
    // Due once the delta holds more than DELTA_MAX posts; the publish itself wrote no term chunk.
    expect(dues.indexOf(true)).toBe(DELTA_MAX);
    expect(await readStaticIndex(s, 'merge')).toEqual(await readStaticIndex(await freshOf(docs), 'merge'));
    const merged = (await statics.maintain('merge'))!;
    expect(merged.written.some((k) => k.includes('/search/t/'))).toBe(true);
    expect(merged.deleted.filter((k) => k.includes('/search/x/'))).toHaveLength(DELTA_CHUNKS);
    expect(merged.due).toBe(false);
    expect(await statics.maintain('merge')).toBeNull();
    expect(await s.list('merge/search/x/')).toEqual([]);
    expect(JSON.parse((await s.get(metaKey('merge')))!.body.toString())).toMatchObject({ delta: 0, docs: docs.length });
    expect(await readStaticIndex(s, 'merge')).toEqual(await readStaticIndex(await freshOf(docs), 'merge'));
  });

  it('lets the delta of a big index hold more posts before a merge, up to DELTA_MAX_BIG, in more files', () => {
    // A merge rewrites about every chunk: the delta grows with the chunk count, so the merges'
    // cost per publish stays flat, and stops where its files are as large as a term chunk.
    expect(deltaMax(8)).toBe(DELTA_MAX);
    expect(deltaMax(256)).toBe(DELTA_MAX);
    expect(deltaMax(512)).toBe(128);
    expect(deltaMax(1024)).toBe(DELTA_MAX_BIG);
    expect(deltaMax(4096)).toBe(DELTA_MAX_BIG);
    // The chunk count of a 10,000-post blog (about 300 distinct words a post).
    expect(deltaMax(chunkCountFor(10_000 * 300))).toBe(DELTA_MAX_BIG);
    // A bigger delta is spread over more files, each about a term chunk's size.
    expect(deltaChunksFor(8)).toBe(DELTA_CHUNKS);
    expect(deltaChunksFor(512)).toBe(2 * DELTA_CHUNKS);
    expect(deltaChunksFor(4096)).toBe(4 * DELTA_CHUNKS);
    // A state written before the count varied has the files it always had.
    expect(deltaChunksOf({})).toBe(DELTA_CHUNKS);
    expect(deltaChunksOf({ deltaChunks: 64 })).toBe(64);
  });

  it('compacts once removed posts pile up, and keeps the result', async () => {
    const s = store();
    const statics = writer(s);
    const docs = Array.from({ length: 40 }, (_, i) => searchDoc({ id: `p${i}`, title: `Post number ${i}`, body: `word${i % 5} shared` }));
    await statics.rebuild('churn', docs);
    // 70 edits of the same post: each leaves a dead ordinal until a compaction clears them.
    let deadSeen = 0;
    for (let i = 0; i < 70; i++) {
      const change = (await statics.upsert('churn', [{ ...docs[0]!, body: `edit ${i} shared` }]))!;
      // As the publisher does, in the background: here, before the next write.
      if (change.due) await statics.maintain('churn');
      deadSeen = Math.max(deadSeen, (JSON.parse((await s.get(metaKey('churn')))!.body.toString()).dead as number[]).length);
    }
    expect(deadSeen).toBeGreaterThan(0);
    const meta = JSON.parse((await s.get(metaKey('churn')))!.body.toString());
    expect(meta.dead.length).toBeLessThan(deadSeen);
    const fresh = store();
    await writer(fresh).rebuild('churn', [{ ...docs[0]!, body: 'edit 69 shared' }, ...docs.slice(1)]);
    expect(await readStaticIndex(s, 'churn')).toEqual(await readStaticIndex(fresh, 'churn'));
  });

  it('answers null for a blog without an index, so the caller builds one', async () => {
    const statics = writer(store());
    expect(await statics.exists('none')).toBe(false);
    expect(await statics.upsert('none', [searchDoc({ id: 'a' })])).toBeNull();
    expect(await statics.remove('none', ['a'])).toBeNull();
  });

  it('sizes chunks to the postings: a few for a small blog, about a thousand for 10,000 posts', () => {
    expect(chunkCountFor(0)).toBe(8);
    expect(chunkCountFor(3_000_000)).toBe(1024);
  });
});
