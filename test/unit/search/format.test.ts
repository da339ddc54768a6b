import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { manifestKey, parseManifest, segmentKey } from '../../../src/search/manifest.js';
import { SearchIndexCache } from '../../../src/search/searchIndexCache.js';
import { SearchIndexWriter } from '../../../src/search/searchIndexWriter.js';
import { decodeSegment, encodeSegment, SEGMENT_FORMAT_VERSION, SearchIndexFormatError } from '../../../src/search/segmentCodec.js';
import { buildSegmentData } from '../../../src/search/segmentData.js';
import { StoredSegment } from '../../../src/search/segmentV3.js';
import { LoadedSegment } from '../../../src/search/loadedSegment.js';
import { legacySegment } from '../../support/legacySegment.js';
import { MemorySiteStore } from '../../support/memorySiteStore.js';
import { searchDoc } from './docFactory.js';
import type { SearchDocument } from '../../../src/search/searchTypes.js';

const PAGE = { page: 1, perPage: 10 };
const JSON_OBJECT = { contentType: 'application/json', cacheControl: 'no-cache' };

async function indexedBlog(): Promise<{ store: MemorySiteStore; segment: string }> {
  const store = new MemorySiteStore();
  await new SearchIndexWriter(store, { workers: 0 }).upsert('b', [searchDoc({ id: 'a', body: 'hello 세계' })]);
  const manifest = parseManifest('m', (await store.get(manifestKey('b')))!.body);
  return { store, segment: segmentKey('b', manifest.segments[0]!) };
}

/**
 * The same one-segment index twice: as this build writes it, and as a build before version 3
 * stored it (a gzip version 2 segment, a manifest entry without a format).
 */
async function indexedInBothVersions(docs: SearchDocument[]): Promise<{ current: MemorySiteStore; legacy: MemorySiteStore }> {
  const current = new MemorySiteStore();
  await new SearchIndexWriter(current, { workers: 0 }).upsert('b', docs);
  const legacy = new MemorySiteStore();
  const manifest = parseManifest('m', (await current.get(manifestKey('b')))!.body);
  const entries = manifest.segments.map(({ format: _format, ...entry }) => entry);
  await legacy.put(manifestKey('b'), JSON.stringify({ ...manifest, segments: entries }), JSON_OBJECT);
  await legacy.put(segmentKey('b', entries[0]!), legacySegment(buildSegmentData(docs), 2), JSON_OBJECT);
  return { current, legacy };
}

describe('stored format', () => {
  it('round-trips a segment through encode and decode', async () => {
    const data = buildSegmentData([
      searchDoc({ id: 'a', title: 'Koa 서버를', body: 'x '.repeat(300), tags: ['node', '개발'] }),
      searchDoc({ id: 'b', title: 'Other', body: 'koa koa koa' }),
    ]);
    const encoded = await encodeSegment(data);
    expect(encoded.body.length).toBe(encoded.rawBytes);
    const decoded = await decodeSegment('k', encoded.body);
    expect(decoded.terms).toEqual(data.terms);
    expect([...decoded.offsets]).toEqual([...data.offsets]);
    expect([...decoded.postingDocs]).toEqual([...data.postingDocs]);
    expect([...decoded.postingTfs]).toEqual([...data.postingTfs]);
    expect(decoded.docs).toEqual(data.docs);
  });

  it('refuses a segment of another format version, naming both versions', async () => {
    const { store, segment } = await indexedBlog();
    const raw = Buffer.from((await store.get(segment))!.body);
    raw.writeUInt16LE(SEGMENT_FORMAT_VERSION + 1, 4);
    await store.put(segment, raw, JSON_OBJECT);
    const search = new SearchIndexCache(store).search('b', 'hello', PAGE);
    await expect(search).rejects.toBeInstanceOf(SearchIndexFormatError);
    await expect(search).rejects.toThrow(`segment format version ${SEGMENT_FORMAT_VERSION + 1} is not supported (this build reads versions 1, 2 and 3)`);
  });

  it('reads a version 1 segment (whole occurrences, written before code was indexed) in the current units', async () => {
    const docs = [searchDoc({ id: 'a', title: 'Koa 서버를', body: 'koa x y', tags: ['node'] }), searchDoc({ id: 'b', title: 'Other', body: 'koa koa koa' })];
    const data = buildSegmentData(docs);
    // What version 1 stored for the same posts: every frequency and length in whole occurrences.
    const v1 = {
      ...data,
      postingTfs: data.postingTfs.map((tf) => tf / 2),
      docs: { ...data.docs, lengths: data.docs.lengths.map((length) => length / 2) },
    };
    const decoded = await decodeSegment('k', legacySegment(v1, 1));
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

  it('the reindex after the upgrade replaces a version 2 index with version 3 and leaves no gzip segment behind', async () => {
    const docs = [searchDoc({ id: 'a', title: 'Koa 서버를', body: 'koa server' }), searchDoc({ id: 'b', title: 'Other', body: 'koa koa' })];
    const { legacy } = await indexedInBothVersions(docs);
    const cache = new SearchIndexCache(legacy);
    const before = await cache.search('b', 'koa', PAGE);

    await new SearchIndexWriter(legacy, { cache, workers: 0 }).rebuild('b', docs);
    const keys = await legacy.list('b/_search/');
    expect(keys.filter((key) => key.endsWith('.gz'))).toEqual([]);
    expect(keys.filter((key) => key.endsWith('.bin'))).toHaveLength(1);
    expect(parseManifest('m', (await legacy.get(manifestKey('b')))!.body).segments.every((s) => s.format === 3)).toBe(true);
    expect(await new SearchIndexCache(legacy).search('b', 'koa', PAGE)).toEqual(before);
  });

  it('answers from an index stored in version 2 (before the upgrade) exactly as from the same index in version 3', async () => {
    const docs = [
      searchDoc({ id: 'a', title: 'Koa 서버를 만들기', body: 'koa server 블로그를 시작', tags: ['node'] }),
      searchDoc({ id: 'b', title: 'Other', body: 'koa koa koa 서버', code: 'const koa = 1' }),
      searchDoc({ id: 'c', title: 'Third', body: 'nothing in common' }),
    ];
    const { current, legacy } = await indexedInBothVersions(docs);
    expect((await legacy.list('b/_search/')).filter((key) => key.endsWith('.bin.gz'))).toHaveLength(1);
    for (const q of ['koa', '서버', '블로그', 'const', 'koa 서버', 'missing']) {
      expect(await new SearchIndexCache(legacy).search('b', q, PAGE)).toEqual(await new SearchIndexCache(current).search('b', q, PAGE));
    }
  });
});

describe('version 3 segments', () => {
  const docs = [
    searchDoc({ id: 'a', title: 'Koa 서버를', body: 'x '.repeat(300) + 'zebra', tags: ['node', '개발'] }),
    searchDoc({ id: 'b', title: 'Other', body: 'koa koa koa', code: 'select 1' }),
    searchDoc({ id: 'c', title: 'Zebra crossing', body: 'zebra koa', publishedAt: 'not a date' }),
  ];

  it('open to the same terms, postings, lengths and documents as the data they were written from', async () => {
    const data = buildSegmentData(docs);
    const stored = new StoredSegment('k', (await encodeSegment(data)).body);
    expect(stored.terms).toEqual(data.terms);
    expect([...stored.lengths]).toEqual([...data.docs.lengths]);
    expect([...stored.publishedMs]).toEqual(data.docs.publishedAt.map((iso) => (Number.isNaN(Date.parse(iso)) ? Number.NEGATIVE_INFINITY : Date.parse(iso))));
    data.terms.forEach((_, t) => {
      const { docs: ordinals, tfs } = stored.posting(t);
      expect([...ordinals]).toEqual([...data.postingDocs.subarray(data.offsets[t], data.offsets[t + 1])]);
      expect([...tfs]).toEqual([...data.postingTfs.subarray(data.offsets[t], data.offsets[t + 1])]);
    });
    expect(stored.ids()).toEqual(data.docs.ids);
    expect(stored.docTable()).toEqual(data.docs);
    expect(stored.full()).toEqual(data);
  });

  it('decode only what a query reads: a damaged posting or document table fails the query that reads it, not the others', async () => {
    const data = buildSegmentData(docs);
    const raw = (await encodeSegment(data)).body;
    // The postings block ends the segment, and the last term's postings end the block.
    const last = data.terms.at(-1)!;
    expect(last).toBe('서버');
    const damaged = Buffer.from(raw);
    damaged[damaged.length - 1] = 0xff;
    const store = new MemorySiteStore();
    const writer = new SearchIndexWriter(store, { workers: 0 });
    await writer.upsert('b', docs);
    const manifest = parseManifest('m', (await store.get(manifestKey('b')))!.body);
    const key = segmentKey('b', manifest.segments[0]!);
    expect(key).toMatch(/\.bin$/);
    await store.put(key, damaged, JSON_OBJECT);
    const cache = new SearchIndexCache(store);
    expect((await cache.search('b', 'koa', PAGE)).total).toBe(3);
    await expect(cache.search('b', last, PAGE)).rejects.toThrow(/postings do not match their term offsets/);

    // A document table that does not parse: counting matches needs no document, showing them does.
    const docsBlockAt = raw.indexOf(Buffer.from('["post-a",'));
    const broken = Buffer.from(raw);
    broken.write('}', docsBlockAt, 'latin1');
    await store.put(key, broken, JSON_OBJECT);
    const fresh = new SearchIndexCache(store);
    expect(await fresh.search('b', 'koa', { page: 5, perPage: 10 })).toEqual({ hits: [], total: 3 });
    await expect(fresh.search('b', 'koa', PAGE)).rejects.toThrow(/segment document table is malformed/);
  });

  it('refuse blocks that do not add up', async () => {
    const raw = (await encodeSegment(buildSegmentData(docs))).body;
    expect(() => new StoredSegment('k', raw.subarray(0, raw.length - 1))).toThrow(/blocks do not add up to its size/);
    const header = raw.toString('utf8', 10, 10 + raw.readUInt32LE(6));
    const wrongCount = Buffer.concat([
      raw.subarray(0, 10),
      Buffer.from(header.replace(/"terms":(\d+)/, (_, n: string) => `"terms":${Number(n) + 1}`)),
      raw.subarray(10 + header.length),
    ]);
    wrongCount.writeUInt32LE(Buffer.byteLength(header.replace(/"terms":(\d+)/, (_, n: string) => `"terms":${Number(n) + 1}`)), 6);
    expect(() => new StoredSegment('k', wrongCount)).toThrow(SearchIndexFormatError);
    const notJson = Buffer.from(raw);
    notJson.write('!', 10, 'latin1');
    expect(() => new StoredSegment('k', notJson)).toThrow(/segment header is malformed/);
  });

  it('keep decoded postings for later queries within a quarter of the stored size, and answer the same after dropping some', async () => {
    const many = Array.from({ length: 60 }, (_, i) => searchDoc({ id: `d${i}`, body: `common word${i} word${i + 1} ${'filler '.repeat(i % 7)}` }));
    const data = buildSegmentData(many);
    const { body } = await encodeSegment(data);
    const segment = LoadedSegment.fromStored('s', new StoredSegment('k', body));
    const expected = LoadedSegment.fromData('d', data);
    for (let round = 0; round < 2; round++) {
      data.terms.forEach((_, t) => {
        expect([...segment.posting(t).docs]).toEqual([...expected.posting(t).docs]);
        expect(segment.keptPostingBytes).toBeLessThanOrEqual(body.length / 4);
      });
    }
    expect(segment.keptPostingBytes).toBeGreaterThan(0);
  });
});
