/** Writes a segment in format version 3 (the layout segmentV3.ts describes and reads). */
import type { SegmentData } from './segmentData.js';
import { writeVarint } from './varint.js';
import { runSteps, runStepsCooperatively } from '../lib/steps.js';
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
/** Postings encoded between pauses: one common term of a 50,000-post blog has as many. */
const POSTINGS_STEP = 1 << 18;
/** Bytes copied into the stored form between pauses. */
const COPY_STEP = 1 << 21;

const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');

/** The encoding as steps (lib/steps.ts): what the two functions above run, and what the tests count. */
export function* encodeV3Steps(data: SegmentData): Generator<void, Buffer> {
  const termCount = data.terms.length;
  const docCount = data.docs.ids.length;
  // Worst case 5 bytes per varint: a gap and a tf per posting.
  const postings = Buffer.allocUnsafe(10 * data.postingDocs.length);
  const byteOffsets = new Uint32Array(termCount + 1);
  let at = 0;
  let sincePause = 0;
  for (let t = 0; t < termCount; t++) {
    byteOffsets[t] = at;
    let previous = -1;
    for (let j = data.offsets[t]!; j < data.offsets[t + 1]!; j++) {
      const doc = data.postingDocs[j]!;
      at = writeVarint(postings, at, doc - previous - 1);
      at = writeVarint(postings, at, data.postingTfs[j]!);
      previous = doc;
    }
    sincePause += data.offsets[t + 1]! - data.offsets[t]! + 1;
    if (sincePause >= POSTINGS_STEP || (t + 1) % ENCODE_STEP === 0) {
      sincePause = 0;
      yield;
    }
  }
  byteOffsets[termCount] = at;
  const d = data.docs;
  yield;
  const termsBlock = Buffer.from(JSON.stringify(data.terms), 'utf8');
  yield;
  const idsBlock = Buffer.from(JSON.stringify(d.ids), 'utf8');
  // One JSON array of records; each record is followed by one byte (`,` or the closing `]`).
  // Joined a step's records at a time: tens of thousands of small buffers joined at the end held
  // the event loop for over 100 ms at 50,000 posts.
  const docOffsets = new Uint32Array(docCount + 1);
  const docChunks: Buffer[] = [OPEN];
  let stepParts: Buffer[] = [];
  let docAt = 1;
  for (let i = 0; i < docCount; i++) {
    const record = Buffer.from(JSON.stringify([d.slugs[i], d.titles[i], d.descriptions[i], d.tags[i], d.createdAt[i], d.publishedAt[i], d.urls[i]]), 'utf8');
    docOffsets[i] = docAt;
    stepParts.push(record, i === docCount - 1 ? CLOSE : COMMA);
    docAt += record.length + 1;
    if ((i + 1) % ENCODE_STEP === 0) {
      docChunks.push(Buffer.concat(stepParts));
      stepParts = [];
      yield;
    }
  }
  if (docCount === 0) stepParts.push(CLOSE);
  docChunks.push(Buffer.concat(stepParts));
  docOffsets[docCount] = docCount === 0 ? 2 : docAt;
  yield;
  const publishedMs = publishedMsOf(data.docs.publishedAt);
  const publishedBlock = Buffer.allocUnsafe(8 * docCount);
  for (let i = 0; i < docCount; i++) publishedBlock.writeDoubleLE(publishedMs[i]!, 8 * i);
  const docsBytes = docChunks.reduce((sum, chunk) => sum + chunk.length, 0);
  const header: HeaderV3 = {
    docs: docCount,
    terms: termCount,
    postings: data.postingDocs.length,
    blocks: [termsBlock.length, idsBlock.length, docsBytes, at],
  };
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  yield;
  const prefix = Buffer.alloc(PREFIX_BYTES);
  prefix.write(MAGIC, 0, 'latin1');
  prefix.writeUInt16LE(V3, 4);
  prefix.writeUInt32LE(headerBytes.length, 6);
  const parts = [prefix, headerBytes, termsBlock, idsBlock, ...docChunks, u32Block(data.offsets), u32Block(byteOffsets)];
  yield;
  parts.push(u32Block(docOffsets), u32Block(d.lengths), publishedBlock, postings.subarray(0, at));
  // Copied into place a few megabytes at a time rather than by one Buffer.concat of the whole.
  const out = Buffer.allocUnsafe(parts.reduce((sum, part) => sum + part.length, 0));
  let written = 0;
  sincePause = 0;
  for (const part of parts) {
    for (let from = 0; from < part.length; from += COPY_STEP) {
      const piece = part.subarray(from, from + COPY_STEP);
      out.set(piece, written);
      written += piece.length;
      sincePause += piece.length;
      if (sincePause >= COPY_STEP) {
        sincePause = 0;
        yield;
      }
    }
  }
  return out;
}
