/**
 * Reading segment format versions 1 and 2 (written before version 3, segmentV3.ts): one JSON
 * header holding the document table and the term list, then per term a count and (ordinal gap,
 * weighted tf) varint pairs. Version 1 counted whole occurrences; the current unit is half of
 * one, so its frequencies and lengths are doubled. Such segments are decoded whole (on a worker
 * thread in the server); a merge or a reindex rewrites them as version 3.
 */
import type { DocTable, SegmentData } from './segmentData.js';
import { SearchIndexFormatError } from './segmentErrors.js';
import { PREFIX_BYTES } from './segmentV3.js';
import { VarintReader } from './varint.js';

interface SegmentHeader {
  docs: Omit<DocTable, 'lengths'> & { lengths: number[] };
  terms: string[];
  postings: number;
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

export function decodeLegacySegment(key: string, raw: Buffer, version: 1 | 2): SegmentData {
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
  const reader = new VarintReader(raw, headerEnd);
  const varint = (): number => reader.next();
  let p = 0;
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
  if (reader.at > end) throw new SearchIndexFormatError(key, 'postings are truncated');
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
