import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { manifestKey, parseManifest, segmentKey } from '../../../src/search/manifest.js';
import { SearchIndexCache } from '../../../src/search/searchIndexCache.js';
import { SearchIndexWriter } from '../../../src/search/searchIndexWriter.js';
import { decodeSegment, encodeSegment, SEGMENT_FORMAT_VERSION, SearchIndexFormatError } from '../../../src/search/segmentCodec.js';
import { buildSegmentData } from '../../../src/search/segmentData.js';
import { MemorySiteStore } from '../../support/memorySiteStore.js';
import { searchDoc } from './docFactory.js';

const PAGE = { page: 1, perPage: 10 };
const JSON_OBJECT = { contentType: 'application/json', cacheControl: 'no-cache' };

async function indexedBlog(): Promise<{ store: MemorySiteStore; segment: string }> {
  const store = new MemorySiteStore();
  await new SearchIndexWriter(store, { workers: 0 }).upsert('b', [searchDoc({ id: 'a', body: 'hello 세계' })]);
  const manifest = parseManifest('m', (await store.get(manifestKey('b')))!.body);
  return { store, segment: segmentKey('b', manifest.segments[0]!.id) };
}

describe('stored format', () => {
  it('round-trips a segment through encode and decode', async () => {
    const data = buildSegmentData([
      searchDoc({ id: 'a', title: 'Koa 서버를', body: 'x '.repeat(300), tags: ['node', '개발'] }),
      searchDoc({ id: 'b', title: 'Other', body: 'koa koa koa' }),
    ]);
    const encoded = await encodeSegment(data);
    expect(gunzipSync(encoded.body).length).toBe(encoded.rawBytes);
    const decoded = await decodeSegment('k', encoded.body);
    expect(decoded.terms).toEqual(data.terms);
    expect([...decoded.offsets]).toEqual([...data.offsets]);
    expect([...decoded.postingDocs]).toEqual([...data.postingDocs]);
    expect([...decoded.postingTfs]).toEqual([...data.postingTfs]);
    expect(decoded.docs).toEqual(data.docs);
  });

  it('refuses a segment of another format version, naming both versions', async () => {
    const { store, segment } = await indexedBlog();
    const raw = gunzipSync((await store.get(segment))!.body);
    raw.writeUInt16LE(SEGMENT_FORMAT_VERSION + 1, 4);
    await store.put(segment, gzipSync(raw), JSON_OBJECT);
    const search = new SearchIndexCache(store).search('b', 'hello', PAGE);
    await expect(search).rejects.toBeInstanceOf(SearchIndexFormatError);
    await expect(search).rejects.toThrow(`segment format version ${SEGMENT_FORMAT_VERSION + 1} is not supported (this build reads versions 1 and 2)`);
  });

  it('reads a version 1 segment (whole occurrences, written before code was indexed) in the current units', async () => {
    const docs = [
      searchDoc({ id: 'a', title: 'Koa 서버를', body: 'koa x y', tags: ['node'] }),
      searchDoc({ id: 'b', title: 'Other', body: 'koa koa koa' }),
    ];
    const data = buildSegmentData(docs);
    // What version 1 stored for the same posts: every frequency and length in whole occurrences.
    const v1 = {
      ...data,
      postingTfs: data.postingTfs.map((tf) => tf / 2),
      docs: { ...data.docs, lengths: data.docs.lengths.map((length) => length / 2) },
    };
    const raw = gunzipSync((await encodeSegment(v1)).body);
    raw.writeUInt16LE(1, 4);
    const decoded = await decodeSegment('k', gzipSync(raw));
    expect([...decoded.postingTfs]).toEqual([...data.postingTfs]);
    expect([...decoded.docs.lengths]).toEqual([...data.docs.lengths]);
  });

  it('refuses a manifest of another format version', async () => {
    const { store } = await indexedBlog();
    const manifest = JSON.parse((await store.get(manifestKey('b')))!.body.toString()) as Record<string, unknown>;
    await store.put(manifestKey('b'), JSON.stringify({ ...manifest, formatVersion: 2 }), JSON_OBJECT);
    await expect(new SearchIndexCache(store).search('b', 'hello', PAGE)).rejects.toThrow(/manifest format version 2 is not supported/);
  });

  it('refuses objects that are not segments at all', async () => {
    await expect(decodeSegment('k', Buffer.from('plain text'))).rejects.toThrow(/not gzip data/);
    await expect(decodeSegment('k', gzipSync(Buffer.from('{"lunr":"2.3.9"}')))).rejects.toThrow(/not a search segment/);
    expect(() => parseManifest('k', Buffer.from('{"format":"other"}'))).toThrow(SearchIndexFormatError);
  });

  it('rebuild replaces an index it cannot read', async () => {
    const { store, segment } = await indexedBlog();
    await store.put(segment, Buffer.from('garbage'), JSON_OBJECT);
    const cache = new SearchIndexCache(store);
    await expect(cache.search('b', 'hello', PAGE)).rejects.toThrow(SearchIndexFormatError);
    await new SearchIndexWriter(store, { cache, workers: 0 }).rebuild('b', [searchDoc({ id: 'a', body: 'hello again' })]);
    expect((await cache.search('b', 'again', PAGE)).total).toBe(1);
    expect(await store.get(segment)).toBeNull();
  });
});
