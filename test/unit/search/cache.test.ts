import { describe, expect, it } from 'vitest';
import { manifestKey, segmentKey } from '../../../src/search/manifest.js';
import { SearchIndexCache } from '../../../src/search/searchIndexCache.js';
import { SearchIndexWriter } from '../../../src/search/searchIndexWriter.js';
import type { StoredObject } from '../../../src/storage/siteStore.js';
import { MemorySiteStore } from '../../support/memorySiteStore.js';
import { searchDoc } from './docFactory.js';
import type { BlogSearcher } from '../../../src/search/ports.js';
import type { SearchIndexUpdater } from '../../../src/search/ports.js';

const PAGE = { page: 1, perPage: 20 };

function segmentGets(store: MemorySiteStore): string[] {
  return store.calls.get.filter((k) => k.includes('/_search/seg-'));
}

async function blogWith(store: MemorySiteStore, blog: string, words: string, count: number): Promise<void> {
  const writer = new SearchIndexWriter(store, { workers: 0, headMaxDocs: 4 });
  await writer.rebuild(
    blog,
    Array.from({ length: count }, (_, i) => searchDoc({ id: `${blog}${i}`, body: `${words} ${'filler text '.repeat(20)} n${i}` })),
  );
}

describe('SearchIndexCache', () => {
  it('is the searcher the route expects and the writer is the updater the publisher expects', async () => {
    const store = new MemorySiteStore();
    // Compile-time checks (tsc): the assignments fail to type-check if the interfaces drift.
    const searcher: BlogSearcher = new SearchIndexCache(store);
    const updater: SearchIndexUpdater = new SearchIndexWriter(store, { workers: 0 });
    await updater.upsert('b', [searchDoc({ id: 'a', body: 'wired' })]);
    expect((await searcher.search('b', 'wired', PAGE)).total).toBe(1);
  });

  it('sees a change written by another process on the next query, fetching only the new segments', async () => {
    const store = new MemorySiteStore();
    await blogWith(store, 'b', 'alpha', 10);
    const reader = new SearchIndexCache(store);
    expect((await reader.search('b', 'alpha', PAGE)).total).toBe(10);

    // Another process: its own writer and cache over the same store.
    const other = new SearchIndexWriter(store, { workers: 0, headMaxDocs: 4, autoMerge: false });
    await other.upsert('b', [searchDoc({ id: 'late', body: 'alpha beta' })]);
    const manifest = JSON.parse((await store.get(manifestKey('b')))!.body.toString()) as { head: string; segments: { id: string; format?: 3 }[] };
    store.resetCalls();

    expect((await reader.search('b', 'beta', PAGE)).hits.map((h) => h.slug)).toEqual(['post-late']);
    expect(segmentGets(store)).toEqual([segmentKey('b', manifest.segments.find((s) => s.id === manifest.head)!)]);
    expect((await reader.search('b', 'alpha', PAGE)).total).toBe(11);
  });

  it('lets go of every index at rest, and loads a blog again on its next query', async () => {
    const store = new MemorySiteStore();
    await blogWith(store, 'a', 'alpha', 6);
    await blogWith(store, 'b', 'beta', 6);
    const reader = new SearchIndexCache(store);
    await reader.search('a', 'alpha', PAGE);
    await reader.search('b', 'beta', PAGE);
    const held = reader.stats().bytes;
    expect(held).toBeGreaterThan(0);
    expect(reader.release()).toBe(held);
    expect(reader.stats()).toEqual({ bytes: 0, blogs: [] });
    store.resetCalls();
    expect((await reader.search('b', 'beta', PAGE)).total).toBe(6);
    expect(segmentGets(store).length).toBeGreaterThan(0);
    expect(reader.stats().blogs).toEqual(['b']);
  });

  it('answers from memory while the manifest is unchanged, reading only the manifest', async () => {
    const store = new MemorySiteStore();
    await blogWith(store, 'b', 'alpha', 6);
    const reader = new SearchIndexCache(store);
    await reader.search('b', 'alpha', PAGE);
    store.resetCalls();
    await reader.search('b', 'alpha', PAGE);
    await reader.search('b', 'n3', PAGE);
    expect(store.calls.get).toEqual([manifestKey('b'), manifestKey('b')]);
  });

  it('shows a write of the same process at once, without fetching what the writer already holds', async () => {
    const store = new MemorySiteStore();
    const cache = new SearchIndexCache(store);
    const writer = new SearchIndexWriter(store, { cache, workers: 0 });
    await writer.upsert('b', [searchDoc({ id: 'a', body: 'first' })]);
    await cache.search('b', 'first', PAGE);
    store.resetCalls();
    await writer.upsert('b', [searchDoc({ id: 'b', body: 'second' })]);
    expect((await cache.search('b', 'second', PAGE)).total).toBe(1);
    expect(segmentGets(store)).toEqual([]);
  });

  it('evicts the least recently used blog when over its byte budget', async () => {
    const store = new MemorySiteStore();
    for (const blog of ['one', 'two', 'three']) await blogWith(store, blog, 'shared', 12);
    const probe = new SearchIndexCache(store);
    await probe.search('one', 'shared', PAGE);
    const oneBlog = probe.stats().bytes;
    expect(oneBlog).toBeGreaterThan(0);

    const cache = new SearchIndexCache(store, { maxBytes: Math.floor(oneBlog * 2.5) });
    await cache.search('one', 'shared', PAGE);
    await cache.search('two', 'shared', PAGE);
    await cache.search('one', 'shared', PAGE); // one is now the most recent
    await cache.search('three', 'shared', PAGE);
    expect(cache.stats().blogs).toEqual(['one', 'three']);
    expect(cache.stats().bytes).toBeLessThanOrEqual(oneBlog * 2.5);

    store.resetCalls();
    await cache.search('two', 'shared', PAGE);
    expect(segmentGets(store).every((k) => k.startsWith('two/'))).toBe(true);
    expect(segmentGets(store).length).toBeGreaterThan(0);
    expect(cache.stats().blogs).toEqual(['three', 'two']);
  });

  it('keeps the blog being searched even when it alone exceeds the budget', async () => {
    const store = new MemorySiteStore();
    await blogWith(store, 'big', 'word', 8);
    await blogWith(store, 'small', 'word', 1);
    const cache = new SearchIndexCache(store, { maxBytes: 1 });
    expect((await cache.search('small', 'word', PAGE)).total).toBe(1);
    expect((await cache.search('big', 'word', PAGE)).total).toBe(8);
    expect(cache.stats().blogs).toEqual(['big']);
  });

  it('answers nothing for a blog without an index and forgets one whose index was dropped', async () => {
    const store = new MemorySiteStore();
    const cache = new SearchIndexCache(store);
    expect(await cache.search('none', 'word', PAGE)).toEqual({ hits: [], total: 0 });
    await blogWith(store, 'b', 'word', 3);
    expect((await cache.search('b', 'word', PAGE)).total).toBe(3);
    await new SearchIndexWriter(store).drop('b');
    expect(await cache.search('b', 'word', PAGE)).toEqual({ hits: [], total: 0 });
    expect(cache.stats()).toEqual({ bytes: 0, blogs: [] });
  });

  it('re-reads the manifest when a segment it names was replaced in between', async () => {
    const store = new MemorySiteStore();
    await blogWith(store, 'b', 'word', 5);
    let hidden = 1;
    // The first segment read finds nothing, as when a writer deleted it after our manifest read.
    const racing = Object.assign(Object.create(store) as MemorySiteStore, {
      get: async (key: string): Promise<StoredObject | null> => {
        if (key.includes('/seg-') && hidden-- > 0) return null;
        return store.get(key);
      },
    });
    const cache = new SearchIndexCache(racing);
    store.resetCalls();
    expect((await cache.search('b', 'word', PAGE)).total).toBe(5);
    expect(store.calls.get.filter((k) => k === manifestKey('b')).length).toBe(2);
  });

  it('shares one load between concurrent searches of a cold blog', async () => {
    const store = new MemorySiteStore();
    await blogWith(store, 'b', 'word', 9);
    const cache = new SearchIndexCache(store);
    store.resetCalls();
    const results = await Promise.all([cache.search('b', 'word', PAGE), cache.search('b', 'n1', PAGE), cache.search('b', 'n2', PAGE)]);
    expect(results.map((r) => r.total)).toEqual([9, 1, 1]);
    const gets = segmentGets(store);
    expect(new Set(gets).size).toBe(gets.length);
  });

  it('a restarted writer warmed for a blog reads its head and the ids of the other segments then, and its first upsert reads no segment', async () => {
    const store = new MemorySiteStore();
    const first = new SearchIndexWriter(store, { workers: 0, headMaxDocs: 2, autoMerge: false });
    for (let i = 0; i < 6; i++) await first.upsert('b', [searchDoc({ id: `p${i}`, body: `word${i} common` })]);
    const cache = new SearchIndexCache(store);
    const restarted = new SearchIndexWriter(store, { workers: 0, headMaxDocs: 2, autoMerge: false, cache });
    store.resetCalls();
    await restarted.warm('b');
    expect(segmentGets(store).length).toBeGreaterThan(1);
    // The whole index is for queries to load.
    expect(cache.stats().blogs).toEqual([]);
    store.resetCalls();
    // An edit of an indexed post: found by id in the segments warmed, no segment read again.
    await restarted.upsert('b', [searchDoc({ id: 'p1', body: 'edited common' })]);
    expect(segmentGets(store)).toEqual([]);
    expect((await cache.search('b', 'edited', { page: 1, perPage: 10 })).total).toBe(1);
    expect((await cache.search('b', 'word1', { page: 1, perPage: 10 })).total).toBe(0);
    expect((await cache.search('b', 'common', { page: 1, perPage: 10 })).total).toBe(6);
  });
});
