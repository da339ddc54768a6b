/**
 * The stored form of a segment:
 *
 *   "FSEG" | u16 format version | u32 header length | header (JSON) | blocks
 *
 * Version 3 (segmentV3.ts) is written, as it is, to `<blog>/_search/seg-<id>.bin`: a reader
 * opens it in place, reading only its term list and per-document numbers (LoadedSegment).
 * Compression was dropped with version 2: gunzip on every first query cost more than the
 * private storage it saved. Versions 1 and 2 (segmentLegacy.ts) were
 * gzip-compressed to `seg-<id>.bin.gz` and are still read, decoded whole; `decodeSegment` decodes
 * any of them whole, for merges, workers and tests. A reader meeting a version it does not know
 * refuses it with SearchIndexFormatError instead of guessing.
 */
import { promisify } from 'node:util';
import { gunzip, gunzipSync } from 'node:zlib';
import type { SegmentData } from './segmentData.js';
import { SearchIndexFormatError } from './segmentErrors.js';
import { decodeLegacySegment } from './segmentLegacy.js';
import { MAGIC, PREFIX_BYTES, StoredSegment, V3 } from './segmentV3.js';
import { encodeV3, encodeV3Cooperatively } from './segmentV3Encode.js';

export { SearchIndexFormatError } from './segmentErrors.js';

/**
 * 3: blocks that open separately (segmentV3.ts). 2: weighted term frequencies and lengths count
 * halves of a prose occurrence (a word in a code block weighs half of one in prose,
 * lunrSetup.ts); version 1 segments, written before code was indexed, are read by doubling both.
 */
export const SEGMENT_FORMAT_VERSION = V3;
const READABLE_VERSIONS: readonly number[] = [1, 2, 3];

const gunzipAsync = promisify(gunzip);

export interface EncodedSegment {
  body: Buffer;
  /** Size of the content (the body's size: version 3 is stored uncompressed). */
  rawBytes: number;
}

/** Encodes on the event loop in slices: a large segment (a rebuild's) takes hundreds of milliseconds. */
export async function encodeSegment(data: SegmentData): Promise<EncodedSegment> {
  const body = await encodeV3Cooperatively(data);
  return { body, rawBytes: body.length };
}

/** encodeSegment for a worker thread (the same work: the name says where it may run). */
export function encodeSegmentSync(data: SegmentData): EncodedSegment {
  const body = encodeV3(data);
  return { body, rawBytes: body.length };
}

const notGzip = (key: string, err: unknown): SearchIndexFormatError =>
  new SearchIndexFormatError(key, `segment is not gzip data (${err instanceof Error ? err.message : String(err)})`);

/** The uncompressed segment; off the event loop (zlib's thread pool). */
export async function gunzipSegment(key: string, body: Buffer): Promise<Buffer> {
  try {
    return await gunzipAsync(body);
  } catch (err) {
    throw notGzip(key, err);
  }
}

/** The format version of an uncompressed segment, refused unless this build reads it. */
export function segmentVersion(key: string, raw: Buffer): number {
  if (raw.length < PREFIX_BYTES || raw.toString('latin1', 0, 4) !== MAGIC) throw new SearchIndexFormatError(key, 'not a search segment');
  const version = raw.readUInt16LE(4);
  if (!READABLE_VERSIONS.includes(version)) {
    const known = `${READABLE_VERSIONS.slice(0, -1).join(', ')} and ${READABLE_VERSIONS.at(-1)!}`;
    throw new SearchIndexFormatError(key, `segment format version ${version} is not supported (this build reads versions ${known})`);
  }
  return version;
}

/** An uncompressed segment of any readable version, decoded whole. */
export function decodeRawSegment(key: string, raw: Buffer): SegmentData {
  const version = segmentVersion(key, raw);
  return version === V3 ? new StoredSegment(key, raw).full() : decodeLegacySegment(key, raw, version as 1 | 2);
}

/** A stored body is a plain segment (version 3) or a gzip-compressed one (versions 1 and 2). */
const isPlain = (body: Buffer): boolean => body.length >= 4 && body.toString('latin1', 0, 4) === MAGIC;

/** Any stored segment, decoded whole. */
export async function decodeSegment(key: string, body: Buffer): Promise<SegmentData> {
  return decodeRawSegment(key, isPlain(body) ? body : await gunzipSegment(key, body));
}

/** decodeSegment for a worker thread. */
export function decodeSegmentSync(key: string, body: Buffer): SegmentData {
  if (isPlain(body)) return decodeRawSegment(key, body);
  let raw: Buffer;
  try {
    raw = gunzipSync(body);
  } catch (err) {
    throw notGzip(key, err);
  }
  return decodeRawSegment(key, raw);
}
