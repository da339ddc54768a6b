/**
 * Writes a segment in format version 1 or 2 (one JSON header with the document table and the
 * term list, then per term a count and varint pairs), as builds before version 3 stored them:
 * what the tests of the upgrade path read. Version 1 took whole occurrences; pass data in those
 * units for it.
 */
import { gzipSync } from 'node:zlib';
import type { SegmentData } from '../../src/search/segmentData.js';
import { writeVarint } from '../../src/search/varint.js';

/** The gzip-compressed stored form in `version`. */
export function legacySegment(data: SegmentData, version: 1 | 2): Buffer {
  const header = {
    docs: { ...data.docs, lengths: Array.from(data.docs.lengths) },
    terms: data.terms,
    postings: data.postingDocs.length,
  };
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  // Worst case 5 bytes per varint: a count per term, a gap and a tf per posting.
  const postings = Buffer.allocUnsafe(5 * (data.terms.length + 2 * data.postingDocs.length));
  let at = 0;
  for (let t = 0; t < data.terms.length; t++) {
    const from = data.offsets[t]!;
    const to = data.offsets[t + 1]!;
    at = writeVarint(postings, at, to - from);
    let previous = -1;
    for (let j = from; j < to; j++) {
      const doc = data.postingDocs[j]!;
      at = writeVarint(postings, at, doc - previous - 1);
      at = writeVarint(postings, at, data.postingTfs[j]!);
      previous = doc;
    }
  }
  const prefix = Buffer.alloc(4 + 2 + 4);
  prefix.write('FSEG', 0, 'latin1');
  prefix.writeUInt16LE(version, 4);
  prefix.writeUInt32LE(headerBytes.length, 6);
  return gzipSync(Buffer.concat([prefix, headerBytes, postings.subarray(0, at)]));
}
