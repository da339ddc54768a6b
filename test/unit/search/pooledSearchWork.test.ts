/**
 * The search index's heavy steps give the same results on the worker pool as in place: a
 * merge joins to the same segment with the same ordinal maps and the same stored bytes, a
 * decode reads back the same data, a segment built from large documents is the one built in
 * place, and a stored segment in another format is still refused as such.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { pooledSearchWork, INLINE_MAX_DECODE_BYTES, INLINE_MAX_INDEX_CHARS, INLINE_MAX_MERGE_POSTINGS } from '../../../src/search/pooledSearchWork.js';
import { mergeInPlace } from '../../../src/search/segmentMerge.js';
import { decodeSegment, SearchIndexFormatError } from '../../../src/search/segmentCodec.js';
import { legacySegment } from '../../support/legacySegment.js';
import { buildSegmentData } from '../../../src/search/segmentData.js';
import { HeavyWork } from '../../../src/heavyWork/heavyWork.js';
import { searchDoc } from './docFactory.js';

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
});
