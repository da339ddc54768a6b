/**
 * The search index's heavy steps give the same results on the worker pool as in place: a
 * merge joins to the same segment with the same ordinal maps and the same stored bytes, a
 * decode reads back the same data, a segment built from large documents is the one built in
 * place, a stored segment in another format is still refused as such, and a static index's
 * delta merge rewrites its chunks on the workers to the same bytes as in place.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { pooledSearchWork, INLINE_MAX_DECODE_BYTES, INLINE_MAX_INDEX_CHARS, INLINE_MAX_MERGE_POSTINGS } from '../../../src/search/pooledSearchWork.js';
import { mergeInPlace } from '../../../src/search/segmentMerge.js';
import { decodeSegment, SearchIndexFormatError } from '../../../src/search/segmentCodec.js';
import { legacySegment } from '../../support/legacySegment.js';
import { buildSegmentData } from '../../../src/search/segmentData.js';
import { HeavyWork } from '../../../src/heavyWork/heavyWork.js';
import { searchDoc } from './docFactory.js';
import { StaticIndexWriter } from '../../../src/search/static/staticIndexWriter.js';
import { DELTA_MAX } from '../../../src/search/static/staticFormat.js';
import { MemorySiteStore } from '../../support/memorySiteStore.js';

const heavy = new HeavyWork({ workers: 2 });
const work = pooledSearchWork(heavy);
afterAll(async () => heavy.close());

/** Words enough that every step goes to a worker. */
function bigDocs(prefix: string, count: number): ReturnType<typeof searchDoc>[] {
  return Array.from({ length: count }, (_, i) =>
    searchDoc({ id: `${prefix}${i}`, body: Array.from({ length: 3000 }, (_, w) => `w${(w * 7919 + i * 104729) % 50_000} 블로그를`).join(' ') }),
  );
}

describe('pooled search work', () => {
  it('runs on compiled worker threads (npm test builds them)', () => {
    expect(heavy.available).toBe(true);
  });

  it('builds the same segment from large documents as in place', async () => {
    const docs = bigDocs('a', 4);
    expect(docs.reduce((n, d) => n + d.body.length, 0)).toBeGreaterThan(INLINE_MAX_INDEX_CHARS);
    expect(await work.buildSegment('blog', docs)).toEqual(buildSegmentData(docs));
  });

  it('merges to the same segment, ordinal maps and stored bytes as in place', async () => {
    const parts = [bigDocs('b', 8), bigDocs('c', 8), bigDocs('d', 8)].map((docs, i) => {
      const drop = i === 1 ? new Uint8Array(docs.length).map((_, j) => (j % 3 === 0 ? 1 : 0)) : null;
      return { data: buildSegmentData(docs), drop };
    });
    expect(parts.reduce((n, p) => n + p.data.postingDocs.length, 0)).toBeGreaterThan(INLINE_MAX_MERGE_POSTINGS);
    const pooled = await work.mergeSegments('blog', parts);
    const inPlace = await mergeInPlace('blog', parts);
    expect(pooled.data).toEqual(inPlace.data);
    expect(pooled.ordinalMaps).toEqual(inPlace.ordinalMaps);
    expect(await decodeSegment('k', pooled.encoded.body)).toEqual(inPlace.data);
    expect(pooled.encoded.rawBytes).toBe(inPlace.encoded.rawBytes);
    // The parts the main thread still holds are untouched by the transfer back.
    expect(parts[0]!.data.postingDocs.length).toBeGreaterThan(0);
  });

  it('decodes a large segment stored before version 3 (gzip) to the same data, and refuses another format the same way', async () => {
    const data = buildSegmentData(bigDocs('e', 40));
    const body = legacySegment(data, 2);
    expect(body.length).toBeGreaterThan(INLINE_MAX_DECODE_BYTES);
    expect(await work.decode('blog/_search/seg-x.bin.gz', body)).toEqual(data);
    const garbage = Buffer.alloc(INLINE_MAX_DECODE_BYTES + 10, 7);
    await expect(work.decode('blog/_search/seg-y.bin.gz', garbage)).rejects.toBeInstanceOf(SearchIndexFormatError);
  });

  it('rewrites the chunks of a static index delta merge on the workers to the same files as in place, then replaces those workers', async () => {
    const docs = Array.from({ length: 10 + DELTA_MAX + 1 }, (_, i) =>
      searchDoc({ id: `m${i}`, title: `Harbour note ${i}`, body: `word${i % 7} lantern${i % 3} 항구에서 ${i}` }),
    );
    let onWorkers = 0;
    let recycled = 0;
    const stores = [new MemorySiteStore(), new MemorySiteStore()];
    const writers = [
      new StaticIndexWriter(stores[0]!, {
        cacheControl: 'public, max-age=60',
        rewriteChunk: (key, request) => {
          onWorkers++;
          return work.rewriteChunk(key, request);
        },
        rewritesDone: () => {
          recycled++;
          work.rewritesDone();
        },
      }),
      new StaticIndexWriter(stores[1]!, { cacheControl: 'public, max-age=60' }),
    ];
    for (const w of writers) {
      await w.rebuild('merge', docs.slice(0, 10));
      for (const doc of docs.slice(10)) await w.upsert('merge', [doc]);
      // An edit and a removal: the merge sheds their dead postings from the chunks it rewrites.
      await w.upsert('merge', [{ ...docs[2]!, body: 'rewritten entirely 새로 씀' }]);
      await w.remove('merge', [docs[5]!.id]);
      expect((await w.maintain('merge'))!.written.some((key) => key.includes('/search/t/'))).toBe(true);
    }
    expect(onWorkers).toBeGreaterThan(0);
    // The workers that ran the merge's rewrites were replaced: idle by then, they stopped at once.
    expect(recycled).toBe(1);
    expect(heavy.stats().workers).toBe(0);
    const files = async (s: MemorySiteStore) =>
      Promise.all(
        (await s.list('merge/search/')).sort().map(async (key) => [key, (await s.getBody(key))!.toString('utf8').replace(/"revision":"[0-9a-f]+"/, '')]),
      );
    expect(await files(stores[0]!)).toEqual(await files(stores[1]!));
  });

  it('replaces the workers after a delta merge whose rewrites failed half-way, too', async () => {
    const docs = Array.from({ length: 10 + DELTA_MAX + 1 }, (_, i) => searchDoc({ id: `f${i}`, title: `Failing note ${i}`, body: `word${i % 7} ${i}` }));
    let calls = 0;
    let recycled = 0;
    const writer = new StaticIndexWriter(new MemorySiteStore(), {
      cacheControl: 'public, max-age=60',
      rewriteChunk: async (key, request) => {
        if (++calls === 2) throw new Error('worker lost');
        return work.rewriteChunk(key, request);
      },
      rewritesDone: () => {
        recycled++;
        work.rewritesDone();
      },
    });
    await writer.rebuild('failing', docs.slice(0, 10));
    for (const doc of docs.slice(10)) await writer.upsert('failing', [doc]);
    await expect(writer.maintain('failing')).rejects.toThrow('worker lost');
    expect(calls).toBeGreaterThan(1);
    expect(recycled).toBe(1);
  });
});
