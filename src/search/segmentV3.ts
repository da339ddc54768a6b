/**
 * Segment format version 3: a layout that opens without decoding everything (docs/search.md).
 * Version 2 stored one JSON header (the whole document table and the term list) followed by the
 * postings of every term as one varint stream, so answering one query meant parsing every title
 * and description and decoding every posting of the blog. Here each part is a block of its own:
 *
 *   header JSON   {docs, terms, postings, blocks: [terms, ids, docs, postings]} (byte lengths)
 *   terms         JSON array, sorted                       parsed when the segment opens
 *   ids           JSON array of post ids                   parsed when a writer locates a post
 *   docs          JSON array of one record per document, [slug, title, description, tags,
 *                 createdAt, publishedAt, url]; a record is parsed when its hit is shown
 *   offsets       u32 × (terms + 1): first posting of each term    read when the segment opens
 *   byteOffsets   u32 × (terms + 1): where each term's postings start in the postings block
 *   docOffsets    u32 × (docs + 1): where each record starts in the docs block
 *   lengths       u32 × docs: weighted document lengths (BM25)     read when the segment opens
 *   publishedMs   f64 × docs: the second sort key                  read when the segment opens
 *   postings      per term, (ordinal gap, weighted tf) varint pairs: decoded per term, on demand
 *
 * Numbers are little-endian. Opening costs the term list and two numbers per document; a query
 * then decodes only the postings of its own words, and a result page parses only the records
 * it shows. A malformed block is found when it is read and reported as SearchIndexFormatError,
 * as a malformed version 2 header was.
 */
import type { DocTable, SegmentData } from './segmentData.js';
import { SearchIndexFormatError } from './segmentErrors.js';
import { VarintReader } from './varint.js';

export const V3 = 3;
export const MAGIC = 'FSEG';
export const PREFIX_BYTES = 4 + 2 + 4;

export interface HeaderV3 {
  docs: number;
  terms: number;
  postings: number;
  /** Byte lengths of the JSON blocks (terms, ids, docs) and of the postings block. */
  blocks: [number, number, number, number];
}

/** What a hit shows of a document. */
export interface DocRecord {
  slug: string;
  title: string;
  description: string;
  tags: string[];
  createdAt: string;
  publishedAt: string;
  url: string;
}

export interface Posting {
  /** Document ordinals, ascending. */
  docs: Uint32Array;
  tfs: Uint16Array;
}

/** publishedAt as epoch ms; an unparsable date sorts last. */
export function publishedMsOf(publishedAt: readonly string[]): Float64Array {
  return Float64Array.from(publishedAt, (iso) => {
    const ms = Date.parse(iso);
    return Number.isNaN(ms) ? Number.NEGATIVE_INFINITY : ms;
  });
}

/**
 * The header of a version 3 segment from its first bytes (`raw` holds at least the prefix and
 * the header: headerEnd tells how many that is). Throws SearchIndexFormatError when malformed.
 */
export function readHeaderV3(key: string, raw: Buffer): { header: HeaderV3; headerEnd: number } {
  if (raw.length < PREFIX_BYTES || raw.toString('latin1', 0, 4) !== MAGIC || raw.readUInt16LE(4) !== V3)
    throw new SearchIndexFormatError(key, 'not a version 3 search segment');
  const headerEnd = PREFIX_BYTES + raw.readUInt32LE(6);
  if (raw.length < headerEnd) throw new SearchIndexFormatError(key, 'segment header is cut short');
  const header = parseBlock(key, raw, PREFIX_BYTES, headerEnd, 'header') as HeaderV3 | null;
  const blocks = header?.blocks;
  if (
    !header ||
    !isCount(header.docs) ||
    !isCount(header.terms) ||
    !isCount(header.postings) ||
    !Array.isArray(blocks) ||
    blocks.length !== 4 ||
    !blocks.every(isCount)
  ) {
    throw new SearchIndexFormatError(key, 'segment header is malformed');
  }
  return { header, headerEnd };
}

const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 0;

export function isStringArray(value: unknown, length: number): value is string[] {
  return Array.isArray(value) && value.length === length && value.every((v) => typeof v === 'string');
}

/** A version 3 segment, opened: the term list and per-document numbers read, the rest on demand. */
export class StoredSegment {
  readonly docCount: number;
  readonly postingCount: number;
  readonly terms: readonly string[];
  /** Postings of terms[t] are numbered [offsets[t], offsets[t + 1]). */
  readonly offsets: Uint32Array;
  readonly lengths: Uint32Array;
  readonly publishedMs: Float64Array;
  /** Bytes of the JSON blocks read on demand (the document table), for memory estimates. */
  readonly docBlockBytes: number;
  private readonly byteOffsets: Uint32Array;
  private readonly docOffsets: Uint32Array;
  private readonly idsAt: number;
  private readonly docsAt: number;
  private readonly docsEnd: number;
  private readonly postingsAt: number;

  constructor(
    readonly key: string,
    /** The uncompressed segment (what a worker decodes for a merge). */
    readonly raw: Buffer,
  ) {
    const fail = (problem: string): void => {
      throw new SearchIndexFormatError(key, problem);
    };
    const { header, headerEnd } = readHeaderV3(key, raw);
    const { docs, terms, blocks } = header;
    const termsAt = headerEnd;
    this.idsAt = termsAt + blocks[0];
    this.docsAt = this.idsAt + blocks[1];
    const offsetsAt = this.docsAt + blocks[2];
    this.docsEnd = offsetsAt;
    const byteOffsetsAt = offsetsAt + 4 * (terms + 1);
    const docOffsetsAt = byteOffsetsAt + 4 * (terms + 1);
    const lengthsAt = docOffsetsAt + 4 * (docs + 1);
    const publishedAt = lengthsAt + 4 * docs;
    this.postingsAt = publishedAt + 8 * docs;
    if (this.postingsAt + blocks[3] !== raw.length) fail('segment blocks do not add up to its size');

    const termList = parseBlock(key, raw, termsAt, this.idsAt, 'term list');
    if (!isStringArray(termList, terms)) fail('segment term list is malformed');
    this.terms = termList as string[];
    this.docCount = docs;
    this.postingCount = header.postings;
    this.docBlockBytes = blocks[1] + blocks[2];
    this.offsets = new Uint32Array(terms + 1);
    this.byteOffsets = new Uint32Array(terms + 1);
    for (let t = 0; t <= terms; t++) {
      this.offsets[t] = raw.readUInt32LE(offsetsAt + 4 * t);
      this.byteOffsets[t] = raw.readUInt32LE(byteOffsetsAt + 4 * t);
      if (t > 0 && (this.offsets[t]! < this.offsets[t - 1]! || this.byteOffsets[t]! < this.byteOffsets[t - 1]!)) fail('segment term offsets are out of order');
    }
    if (this.offsets[0] !== 0 || this.offsets[terms] !== header.postings || this.byteOffsets[terms] !== blocks[3])
      fail('segment term offsets do not match its postings');
    this.docOffsets = new Uint32Array(docs + 1);
    for (let i = 0; i <= docs; i++) {
      this.docOffsets[i] = raw.readUInt32LE(docOffsetsAt + 4 * i);
      if (i > 0 && this.docOffsets[i]! <= this.docOffsets[i - 1]!) fail('segment document offsets are out of order');
    }
    if (this.docOffsets[docs]! > blocks[2]) fail('segment document offsets overrun the document block');
    this.lengths = new Uint32Array(docs);
    this.publishedMs = new Float64Array(docs);
    for (let i = 0; i < docs; i++) {
      this.lengths[i] = raw.readUInt32LE(lengthsAt + 4 * i);
      this.publishedMs[i] = raw.readDoubleLE(publishedAt + 8 * i);
    }
  }

  /** The post ids by ordinal. */
  ids(): string[] {
    const ids = this.json(this.idsAt, this.docsAt, 'ids');
    if (!isStringArray(ids, this.docCount)) throw new SearchIndexFormatError(this.key, 'segment ids are malformed');
    return ids;
  }

  /** The record of one document: one small parse, whatever the segment's size. */
  doc(ordinal: number): DocRecord {
    const from = this.docsAt + this.docOffsets[ordinal]!;
    const to = this.docsAt + this.docOffsets[ordinal + 1]! - 1;
    return this.record(this.json(from, to, 'document table'));
  }

  /** The whole document table (a merge, the writer's head segment). */
  docTable(): DocTable {
    const records = this.json(this.docsAt, this.docsEnd, 'document table');
    if (!Array.isArray(records) || records.length !== this.docCount) throw new SearchIndexFormatError(this.key, 'segment document table is malformed');
    const table: DocTable = {
      ids: this.ids(),
      slugs: [],
      titles: [],
      descriptions: [],
      tags: [],
      createdAt: [],
      publishedAt: [],
      urls: [],
      lengths: this.lengths,
    };
    for (const value of records) {
      const r = this.record(value);
      table.slugs.push(r.slug);
      table.titles.push(r.title);
      table.descriptions.push(r.description);
      table.tags.push(r.tags);
      table.createdAt.push(r.createdAt);
      table.publishedAt.push(r.publishedAt);
      table.urls.push(r.url);
    }
    return table;
  }

  private record(value: unknown): DocRecord {
    const r = value as unknown[];
    const strings = [0, 1, 2, 4, 5, 6].every((i) => Array.isArray(r) && typeof r[i] === 'string');
    if (!Array.isArray(r) || r.length !== 7 || !strings || !Array.isArray(r[3]) || !(r[3] as unknown[]).every((t) => typeof t === 'string')) {
      throw new SearchIndexFormatError(this.key, 'segment document table is malformed');
    }
    const [slug, title, description, tags, createdAt, publishedAt, url] = r as [string, string, string, string[], string, string, string];
    return { slug, title, description, tags, createdAt, publishedAt, url };
  }

  /** Decodes the postings of terms[t]. */
  posting(t: number): Posting {
    const from = this.offsets[t]!;
    const count = this.offsets[t + 1]! - from;
    const docs = new Uint32Array(count);
    const tfs = new Uint16Array(count);
    this.decodeInto(t, docs, tfs, 0);
    return { docs, tfs };
  }

  /** Every posting and the document table: the version 2 shape, for merges and the lunr executor. */
  full(docs: DocTable = this.docTable()): SegmentData {
    const postingDocs = new Uint32Array(this.postingCount);
    const postingTfs = new Uint16Array(this.postingCount);
    for (let t = 0; t < this.terms.length; t++) this.decodeInto(t, postingDocs, postingTfs, this.offsets[t]!);
    return { docs, terms: [...this.terms], offsets: this.offsets, postingDocs, postingTfs };
  }

  private decodeInto(t: number, docs: Uint32Array, tfs: Uint16Array, into: number): void {
    const reader = new VarintReader(this.raw, this.postingsAt + this.byteOffsets[t]!);
    const end = this.postingsAt + this.byteOffsets[t + 1]!;
    const count = this.offsets[t + 1]! - this.offsets[t]!;
    // Past `end` a varint would run into the next term: the check after the loop catches it.
    let doc = -1;
    for (let j = 0; j < count; j++) {
      doc += reader.next() + 1;
      docs[into + j] = doc;
      tfs[into + j] = Math.min(reader.next(), 0xffff);
    }
    if (reader.at !== end) throw new SearchIndexFormatError(this.key, 'postings do not match their term offsets');
    if (doc >= this.docCount) throw new SearchIndexFormatError(this.key, 'posting names a document that does not exist');
  }

  private json(from: number, to: number, what: string): unknown {
    return parseBlock(this.key, this.raw, from, to, what);
  }
}

function parseBlock(key: string, raw: Buffer, from: number, to: number, what: string): unknown {
  try {
    return JSON.parse(raw.toString('utf8', from, to));
  } catch {
    throw new SearchIndexFormatError(key, `segment ${what} is malformed`);
  }
}
