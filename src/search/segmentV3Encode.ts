/** Writes a segment in format version 3 (the layout segmentV3.ts describes and reads). */
import type { SegmentData } from './segmentData.js';
import { writeVarint } from './varint.js';
import { runSteps, runStepsCooperatively } from './steps.js';
import { MAGIC, PREFIX_BYTES, publishedMsOf, V3, type HeaderV3 } from './segmentV3.js';

function u32Block(values: ArrayLike<number>): Buffer {
  const out = Buffer.allocUnsafe(4 * values.length);
  for (let i = 0; i < values.length; i++) out.writeUInt32LE(values[i]!, 4 * i);
  return out;
}

/** The uncompressed stored form of `data` in version 3. */
export function encodeV3(data: SegmentData): Buffer {
  return runSteps(encodeV3Steps(data));
}

/** encodeV3 on the server's event loop, in slices: a large segment would hold it too long in one go. */
export function encodeV3Cooperatively(data: SegmentData): Promise<Buffer> {
  return runStepsCooperatively(encodeV3Steps(data));
}

/** Terms or documents encoded between pauses. */
const ENCODE_STEP = 1024;

function* encodeV3Steps(data: SegmentData): Generator<void, Buffer> {
  const termCount = data.terms.length;
  const docCount = data.docs.ids.length;
  // Worst case 5 bytes per varint: a gap and a tf per posting.
  const postings = Buffer.allocUnsafe(10 * data.postingDocs.length);
  const byteOffsets = new Uint32Array(termCount + 1);
  let at = 0;
  for (let t = 0; t < termCount; t++) {
    byteOffsets[t] = at;
    let previous = -1;
    for (let j = data.offsets[t]!; j < data.offsets[t + 1]!; j++) {
      const doc = data.postingDocs[j]!;
      at = writeVarint(postings, at, doc - previous - 1);
      at = writeVarint(postings, at, data.postingTfs[j]!);
      previous = doc;
    }
    if ((t + 1) % ENCODE_STEP === 0) yield;
  }
  byteOffsets[termCount] = at;
  const d = data.docs;
  yield;
  const termsBlock = Buffer.from(JSON.stringify(data.terms), 'utf8');
  yield;
  const idsBlock = Buffer.from(JSON.stringify(d.ids), 'utf8');
  // One JSON array of records; each record is followed by one byte (`,` or the closing `]`).
  const records: Buffer[] = [];
  for (let i = 0; i < d.ids.length; i++) {
    records.push(Buffer.from(JSON.stringify([d.slugs[i], d.titles[i], d.descriptions[i], d.tags[i], d.createdAt[i], d.publishedAt[i], d.urls[i]]), 'utf8'));
    if ((i + 1) % ENCODE_STEP === 0) yield;
  }
  const docOffsets = new Uint32Array(docCount + 1);
  const docParts: Buffer[] = [Buffer.from('[')];
  let docAt = 1;
  records.forEach((record, i) => {
    docOffsets[i] = docAt;
    docParts.push(record, Buffer.from(i === records.length - 1 ? ']' : ','));
    docAt += record.length + 1;
  });
  if (records.length === 0) docParts.push(Buffer.from(']'));
  docOffsets[docCount] = records.length === 0 ? 2 : docAt;
  yield;
  const docsBlock = Buffer.concat(docParts);
  const publishedMs = publishedMsOf(data.docs.publishedAt);
  const publishedBlock = Buffer.allocUnsafe(8 * docCount);
  for (let i = 0; i < docCount; i++) publishedBlock.writeDoubleLE(publishedMs[i]!, 8 * i);
  const header: HeaderV3 = {
    docs: docCount,
    terms: termCount,
    postings: data.postingDocs.length,
    blocks: [termsBlock.length, idsBlock.length, docsBlock.length, at],
  };
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  yield;
  const prefix = Buffer.alloc(PREFIX_BYTES);
  prefix.write(MAGIC, 0, 'latin1');
  prefix.writeUInt16LE(V3, 4);
  prefix.writeUInt32LE(headerBytes.length, 6);
  return Buffer.concat([
    prefix,
    headerBytes,
    termsBlock,
    idsBlock,
    docsBlock,
    u32Block(data.offsets),
    u32Block(byteOffsets),
    u32Block(docOffsets),
    u32Block(d.lengths),
    publishedBlock,
    postings.subarray(0, at),
  ]);
}
