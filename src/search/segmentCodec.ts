/**
 * The stored form of a segment (`<blog>/_search/seg-<id>.bin.gz`), gzip-compressed:
 *
 *   "FSEG" | u16 format version | u32 header length | header (JSON) | postings (varints)
 *
 * The header holds the document table column by column and the sorted term list; the postings
 * are, per term in that order, a count followed by (ordinal gap, weighted tf) pairs. Binary
 * postings are why a 10,000-post blog loads in a fraction of what lunr's own JSON takes
 * (README.md, "Storage"). A reader meeting another version refuses it with
 * SearchIndexFormatError instead of guessing.
 */
import { promisify } from 'node:util';
import { gunzip, gunzipSync, gzip, gzipSync } from 'node:zlib';
import type { DocTable, SegmentData } from './segmentData.js';

/**
 * 2: weighted term frequencies and lengths count halves of a prose occurrence (a word in a
 * code block weighs half of one in prose, lunrSetup.ts). Version 1 segments, written before
 * code was indexed, are read by doubling both: their scores are unchanged, they just hold no
 * code words until the blog is reindexed (done once after the upgrade, siteRenderer.ts).
 */
export const SEGMENT_FORMAT_VERSION = 2;
const READABLE_VERSIONS: ReadonlySet<number> = new Set([1, 2]);
const MAGIC = 'FSEG';
const PREFIX_BYTES = 4 + 2 + 4;

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/** The stored index was written in a format this build does not read. */
export class SearchIndexFormatError extends Error {
  constructor(
    readonly key: string,
    /** What is wrong, without the key and advice (what a worker thread sends back). */
    readonly problem: string,
  ) {
    super(`${key}: ${problem}; rebuild the blog's search index (folio search reindex <blog>)`);
    this.name = 'SearchIndexFormatError';
  }
}

interface SegmentHeader {
  docs: Omit<DocTable, 'lengths'> & { lengths: number[] };
  terms: string[];
  postings: number;
}

export interface EncodedSegment {
  body: Buffer;
  /** Size before compression, the basis of the cache's memory estimate. */
  rawBytes: number;
}

function writeVarint(out: Buffer, at: number, value: number): number {
  let v = value;
  while (v >= 0x80) {
    out[at++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  out[at++] = v;
  return at;
}

/** Level 3: a third of level 6's time for 5% more bytes; gunzip speed does not depend on it. */
const GZIP_LEVEL = 3;

export async function encodeSegment(data: SegmentData): Promise<EncodedSegment> {
  const raw = rawSegment(data);
  return { body: await gzipAsync(raw, { level: GZIP_LEVEL }), rawBytes: raw.length };
}

/** encodeSegment for a worker thread, where blocking on zlib blocks nobody. */
export function encodeSegmentSync(data: SegmentData): EncodedSegment {
  const raw = rawSegment(data);
  return { body: gzipSync(raw, { level: GZIP_LEVEL }), rawBytes: raw.length };
}

/** The uncompressed stored form: prefix, header, varint postings. */
function rawSegment(data: SegmentData): Buffer {
  const header: SegmentHeader = {
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
  const prefix = Buffer.alloc(PREFIX_BYTES);
  prefix.write(MAGIC, 0, 'latin1');
  prefix.writeUInt16LE(SEGMENT_FORMAT_VERSION, 4);
  prefix.writeUInt32LE(headerBytes.length, 6);
  return Buffer.concat([prefix, headerBytes, postings.subarray(0, at)]);
}

function isStringArray(value: unknown, length: number): value is string[] {
  return Array.isArray(value) && value.length === length && value.every((v) => typeof v === 'string');
}

function checkHeader(key: string, value: unknown): SegmentHeader {
  const h = value as Partial<SegmentHeader> | null;
  const docs = h?.docs;
  const n = docs?.ids?.length ?? -1;
  const valid =
    h !== null &&
    typeof h === 'object' &&
    docs !== undefined &&
    n >= 0 &&
    isStringArray(docs.ids, n) &&
    isStringArray(docs.slugs, n) &&
    isStringArray(docs.titles, n) &&
    isStringArray(docs.descriptions, n) &&
    isStringArray(docs.createdAt, n) &&
    isStringArray(docs.publishedAt, n) &&
    isStringArray(docs.urls, n) &&
    Array.isArray(docs.tags) &&
    docs.tags.length === n &&
    docs.tags.every((t) => isStringArray(t, t.length)) &&
    Array.isArray(docs.lengths) &&
    docs.lengths.length === n &&
    Array.isArray(h.terms) &&
    typeof h.postings === 'number';
  if (!valid) throw new SearchIndexFormatError(key, 'segment header is malformed');
  return h as SegmentHeader;
}

export async function decodeSegment(key: string, body: Buffer): Promise<SegmentData> {
  let raw: Buffer;
  try {
    raw = await gunzipAsync(body);
  } catch (err) {
    throw new SearchIndexFormatError(key, `segment is not gzip data (${err instanceof Error ? err.message : String(err)})`);
  }
  return decodeRawSegment(key, raw);
}

/** decodeSegment for a worker thread. */
export function decodeSegmentSync(key: string, body: Buffer): SegmentData {
  let raw: Buffer;
  try {
    raw = gunzipSync(body);
  } catch (err) {
    throw new SearchIndexFormatError(key, `segment is not gzip data (${err instanceof Error ? err.message : String(err)})`);
  }
  return decodeRawSegment(key, raw);
}

function decodeRawSegment(key: string, raw: Buffer): SegmentData {
  if (raw.length < PREFIX_BYTES || raw.toString('latin1', 0, 4) !== MAGIC) throw new SearchIndexFormatError(key, 'not a search segment');
  const version = raw.readUInt16LE(4);
  if (!READABLE_VERSIONS.has(version)) {
    throw new SearchIndexFormatError(key, `segment format version ${version} is not supported (this build reads versions ${[...READABLE_VERSIONS].join(' and ')})`);
  }
  // Version 1 counted whole occurrences; the current unit is half of one.
  const scale = version === 1 ? 2 : 1;
  const headerLength = raw.readUInt32LE(6);
  const headerEnd = PREFIX_BYTES + headerLength;
  const header = checkHeader(key, JSON.parse(raw.toString('utf8', PREFIX_BYTES, headerEnd)));

  const termCount = header.terms.length;
  const offsets = new Uint32Array(termCount + 1);
  const postingDocs = new Uint32Array(header.postings);
  const postingTfs = new Uint16Array(header.postings);
  const docCount = header.docs.ids.length;
  const end = raw.length;
  let at = headerEnd;
  let p = 0;
  // Reads one varint. Past the end a Buffer yields undefined, which ends the loop as a 0 byte;
  // the single check after the loops turns that into an error.
  const varint = (): number => {
    let byte = raw[at++]!;
    if (byte < 0x80) return byte;
    let value = byte & 0x7f;
    let scale = 0x80;
    do {
      byte = raw[at++]!;
      value += (byte & 0x7f) * scale;
      scale *= 0x80;
    } while (byte >= 0x80);
    return value;
  };
  for (let t = 0; t < termCount; t++) {
    offsets[t] = p;
    const count = varint();
    if (p + count > header.postings) throw new SearchIndexFormatError(key, 'postings overflow the declared count');
    let doc = -1;
    for (let j = 0; j < count; j++) {
      doc += varint() + 1;
      postingDocs[p] = doc;
      postingTfs[p] = Math.min(varint() * scale, 0xffff);
      p++;
    }
    if (doc >= docCount) throw new SearchIndexFormatError(key, 'posting names a document that does not exist');
  }
  if (at > end) throw new SearchIndexFormatError(key, 'postings are truncated');
  offsets[termCount] = p;
  if (p !== header.postings) throw new SearchIndexFormatError(key, 'postings are shorter than declared');

  return {
    docs: { ...header.docs, lengths: Uint32Array.from(header.docs.lengths, (length) => length * scale) },
    terms: header.terms,
    offsets,
    postingDocs,
    postingTfs,
  };
}
