/**
 * Writes to an index that is not in memory (the first publish after a restart) read the
 * manifest, the head segment and byte ranges of the other segments — not the whole index — and
 * leave exactly the index a writer holding everything would have written. Against the real
 * folder store.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { manifestKey } from '../../../src/search/manifest.js';
import { SearchIndexCache } from '../../../src/search/searchIndexCache.js';
import { SearchIndexWriter } from '../../../src/search/searchIndexWriter.js';
import { FsSiteStore } from '../../../src/storage/fsSiteStore.js';
import { S3SiteStore } from '../../../src/storage/s3SiteStore.js';
import { createTestBucket } from '../../../bench/harness/s3rver.js';
import type { SiteStore, StoredObject } from '../../../src/storage/siteStore.js';
import { FaultyStore } from '../../support/faultyStore.js';
import { searchDoc } from './docFactory.js';

/** The folder store, counting the bytes read from segments whole and by range. */
class CountingStore extends FaultyStore {
  wholeSegmentBytes = 0;
  rangeBytes = 0;
  constructor(readonly folder: SiteStore) {
    super(folder);
  }
  override async get(key: string): Promise<StoredObject | null> {
    const object = await super.get(key);
    if (object && key.includes('/_search/seg-')) this.wholeSegmentBytes += object.body.length;
    return object;
  }
  override async getRange(key: string, start: number, end: number): Promise<Buffer | null> {
    const bytes = await super.getRange(key, start, end);
    this.rangeBytes += bytes?.length ?? 0;
    return bytes;
  }
  reset(): void {
    this.wholeSegmentBytes = 0;
    this.rangeBytes = 0;
  }
}

const PAGE = { page: 1, perPage: 50 };
const QUERIES = ['common', 'alpha', 'beta', 'edited', 'fresh', 'word3', 'word40', 'gamma'];

function corpus(n: number) {
  return Array.from({ length: n }, (_, i) =>
    searchDoc({
      id: `p${i}`,
      body: `common word${i} ${i % 3 === 0 ? 'alpha' : 'beta'} ${Array.from({ length: 60 }, (_, k) => `w${(i * 31 + k * 7) % 211}`).join(' ')}`,
      publishedAt: new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString(),
    }),
  );
}

describe('writes to an index not in memory', () => {
  const dirs: string[] = [];
  const folderStore = (): FsSiteStore => {
    const dir = mkdtempSync(join(tmpdir(), 'folio-writebase-'));
    dirs.push(dir);
    return new FsSiteStore({ root: dir });
  };
  let store: CountingStore;

  beforeEach(async () => {
    store = new CountingStore(folderStore());
    await new SearchIndexWriter(store, { workers: 0, headMaxDocs: 8, autoMerge: false }).rebuild('b', corpus(300));
  });
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  async function results(cache: SearchIndexCache): Promise<unknown[]> {
    const out: unknown[] = [];
    for (const q of QUERIES) out.push(await cache.search('b', q, PAGE));
    return out;
  }

  it('a new post: the manifest, the head and the ids of the other segments, a small share of the index', async () => {
    const total = (await store.list('b/_search/')).length;
    expect(total).toBeGreaterThan(2);
    const cache = new SearchIndexCache(store);
    const writer = new SearchIndexWriter(store, { workers: 0, headMaxDocs: 8, autoMerge: false, cache });
    store.reset();
    await writer.upsert('b', [searchDoc({ id: 'new', body: 'fresh common' })]);
    let segmentBytes = 0;
    for (const key of await store.list('b/_search/seg-')) segmentBytes += (await store.folder.get(key))!.body.length;
    expect(store.rangeBytes).toBeGreaterThan(0);
    expect(store.wholeSegmentBytes + store.rangeBytes).toBeLessThan(segmentBytes / 4);
    expect(cache.stats().blogs).toEqual([]);
    expect((await cache.search('b', 'fresh', PAGE)).total).toBe(1);
    expect((await cache.search('b', 'common', PAGE)).total).toBe(301);
  });

  it('leaves the same index as a writer that holds it all, through new posts, edits of sealed posts and removals', async () => {
    // Twin: the same index in another folder, written by a writer whose cache holds everything.
    const twinStore = folderStore();
    const twinCache = new SearchIndexCache(twinStore);
    const twin = new SearchIndexWriter(twinStore, { workers: 0, headMaxDocs: 8, autoMerge: false, cache: twinCache });
    await twin.rebuild('b', corpus(300));
    await twinCache.search('b', 'common', PAGE);

    const steps: ((w: SearchIndexWriter) => Promise<void>)[] = [
      (w) => w.upsert('b', [searchDoc({ id: 'new1', body: 'fresh gamma', publishedAt: '2025-01-01T00:00:00.000Z' })]),
      (w) => w.upsert('b', [searchDoc({ id: 'p3', body: 'edited gamma', publishedAt: '2024-01-01T00:03:00.000Z' })]),
      (w) => w.remove('b', ['p40', 'not-indexed']),
      (w) => w.upsert('b', [searchDoc({ id: 'p3', body: 'edited again', publishedAt: '2024-01-01T00:03:00.000Z' })]),
      (w) => w.remove('b', ['new1']),
    ];
    for (const step of steps) {
      // A fresh process for every write: nothing of the index in memory.
      const cache = new SearchIndexCache(store);
      await step(new SearchIndexWriter(store, { workers: 0, headMaxDocs: 8, autoMerge: false, cache }));
      expect(cache.stats().blogs).toEqual([]);
      await step(twin);
      expect(await results(new SearchIndexCache(store))).toEqual(await results(twinCache));
    }
    const reader = new SearchIndexCache(store);
    expect((await reader.search('b', 'word3', PAGE)).total).toBe(0);
    expect((await reader.search('b', 'edited', PAGE)).hits.map((hit) => hit.slug)).toEqual(['post-p3']);
    expect((await reader.search('b', 'common', PAGE)).total).toBe(298); // p3 lost the word, p40 went
  });

  it('a cache holding an older state of the index is not used, and its next query sees the write', async () => {
    const cache = new SearchIndexCache(store);
    const writer = new SearchIndexWriter(store, { workers: 0, headMaxDocs: 8, autoMerge: false, cache });
    expect((await cache.search('b', 'common', PAGE)).total).toBe(300);
    // Another process writes meanwhile.
    await new SearchIndexWriter(store, { workers: 0, headMaxDocs: 8, autoMerge: false }).upsert('b', [searchDoc({ id: 'elsewhere', body: 'alpha common' })]);
    store.reset();
    await writer.upsert('b', [searchDoc({ id: 'here', body: 'beta common' })]);
    expect(store.wholeSegmentBytes).toBeLessThan(10_000); // the head only
    expect((await cache.search('b', 'common', PAGE)).total).toBe(302);
    expect((await store.get(manifestKey('b')))?.body.toString()).toContain('"head"');
  });

  it('a merge reads whole only the segments it merges, and leaves the index a writer holding it all would', async () => {
    const twinStore = folderStore();
    const twinCache = new SearchIndexCache(twinStore);
    const twin = new SearchIndexWriter(twinStore, { workers: 0, headMaxDocs: 8, mergeFactor: 4, autoMerge: false, cache: twinCache });
    await twin.rebuild('b', corpus(300));
    await twinCache.search('b', 'common', PAGE);
    const writer = new SearchIndexWriter(store, { workers: 0, headMaxDocs: 8, mergeFactor: 4, autoMerge: false, cache: new SearchIndexCache(store) });
    for (let i = 0; i < 40; i++) {
      const doc = searchDoc({ id: `n${i}`, body: `fresh common n${i}`, publishedAt: new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString() });
      await writer.upsert('b', [doc]);
      await twin.upsert('b', [doc]);
    }
    const segmentsBefore = (await store.list('b/_search/seg-')).length;
    let biggest = 0;
    for (const key of await store.list('b/_search/seg-')) biggest = Math.max(biggest, (await store.folder.get(key))!.body.length);
    store.reset();
    const report = await new SearchIndexWriter(store, {
      workers: 0,
      headMaxDocs: 8,
      mergeFactor: 4,
      autoMerge: false,
      cache: new SearchIndexCache(store),
    }).merge('b');
    expect(report.merges).toBeGreaterThan(0);
    expect(report.segments).toBeLessThan(segmentsBefore);
    // The biggest segment (the rebuild's) is not among those merged: it is never read whole.
    expect(store.wholeSegmentBytes).toBeLessThan(biggest);
    await twin.merge('b');
    expect(await results(new SearchIndexCache(store))).toEqual(await results(twinCache));
    expect((await new SearchIndexCache(store).search('b', 'fresh', PAGE)).total).toBe(40);
  });
});

describe('writes to an index not in memory, in an S3 bucket (s3rver)', () => {
  it('reads ranges of the sealed segments and finds an edited post there', async () => {
    const { client, bucket } = await createTestBucket(inject('s3Endpoint'));
    const bucketStore = new CountingStore(new S3SiteStore({ client, bucket }));
    await new SearchIndexWriter(bucketStore, { workers: 0, headMaxDocs: 8, autoMerge: false }).rebuild('b', corpus(80));
    bucketStore.reset();
    const cache = new SearchIndexCache(bucketStore);
    const writer = new SearchIndexWriter(bucketStore, { workers: 0, headMaxDocs: 8, autoMerge: false, cache });
    await writer.upsert('b', [searchDoc({ id: 'p5', body: 'edited in the bucket', publishedAt: '2024-01-01T00:05:00.000Z' })]);
    expect(bucketStore.rangeBytes).toBeGreaterThan(0);
    expect((await cache.search('b', 'word5', PAGE)).total).toBe(0);
    expect((await cache.search('b', 'bucket', PAGE)).hits.map((hit) => hit.slug)).toEqual(['post-p5']);
    expect((await cache.search('b', 'common', PAGE)).total).toBe(79);
  });
});
