/**
 * A segment in memory, plus the per-manifest view of it (which of its documents are deleted).
 * LoadedSegment is immutable and shared by every snapshot that lists its id; only the
 * deletion bitmap differs between snapshots.
 *
 * It is backed either by decoded data (a segment this process just wrote, or one stored in an
 * older format) or by a stored version 3 segment, opened lazily (segmentV3.ts): then the
 * postings of a term are decoded when a query asks for that term (recently used ones are kept,
 * within a budget), a document's record when its hit is shown or a tie is broken, and the ids
 * when a writer locates a post. A first query after a restart thus costs the segments' term
 * lists and the query's own postings, not the whole blog.
 */
import type { DocTable, MergeInput, SegmentData } from './segmentData.js';
import { publishedMsOf, type DocRecord, type Posting, type StoredSegment } from './segmentV3.js';

export type { Posting } from './segmentV3.js';

/**
 * Decoded postings a stored segment keeps for the next query, in bytes, as a share of its stored
 * size: the words readers use again stay decoded, and memory stays bounded by what was budgeted.
 */
const KEPT_POSTINGS_SHARE = 0.25;
/** Estimated heap bytes per kept posting list beyond its arrays (map entry, array objects). */
const POSTING_ENTRY_BYTES = 200;
/** Tie-breaking slugs kept per stored segment. */
const KEPT_SLUGS = 4096;
/** A parsed post id (36 characters) with its string header and map entry. */
const ID_BYTES = 200;

export class LoadedSegment {
  readonly docCount: number;
  /** Weighted document lengths (BM25). */
  readonly lengths: Uint32Array;
  /** publishedAt as epoch ms (the second sort key). */
  readonly publishedMs: Float64Array;
  /** Memory the segment may hold, decoded parts and bounded memos included: the cache budgets for it up front. */
  readonly estimatedBytes: number;
  private readonly terms: readonly string[];
  private readonly offsets: Uint32Array;
  /** Set for a segment backed by decoded data; a stored one reads its parts on demand. */
  private readonly decoded: SegmentData | undefined;
  private readonly table: DocTable | undefined;
  private ordinals: Map<string, number> | undefined;
  /** Postings decoded for recent queries (stored segments only), oldest first, within a budget. */
  private readonly postings = new Map<number, Posting>();
  private keptPostingsBytes = 0;
  private readonly keptPostingsBudget: number = 0;

  private constructor(
    readonly id: string,
    data: SegmentData | undefined,
    private readonly stored: StoredSegment | undefined,
  ) {
    if (data) {
      this.decoded = data;
      this.table = data.docs;
      this.terms = data.terms;
      this.offsets = data.offsets;
      this.lengths = data.docs.lengths;
      this.publishedMs = publishedMsOf(data.docs.publishedAt);
      this.estimatedBytes = estimateBytes(data) + this.publishedMs.byteLength;
    } else {
      const s = stored!;
      this.terms = s.terms;
      this.offsets = s.offsets;
      this.lengths = s.lengths;
      this.publishedMs = s.publishedMs;
      this.keptPostingsBudget = Math.ceil(KEPT_POSTINGS_SHARE * s.raw.length);
      // The stored bytes, what opening read, the ids a writer parses, and the bounded memos.
      this.estimatedBytes =
        s.raw.length +
        stringsBytes(s.terms) +
        s.offsets.byteLength * 2 +
        s.lengths.byteLength * 2 +
        s.publishedMs.byteLength +
        ID_BYTES * s.docCount +
        this.keptPostingsBudget +
        KEPT_SLUGS * (STRING_OVERHEAD + 2 * 64);
    }
    this.docCount = this.lengths.length;
  }

  static fromData(id: string, data: SegmentData): LoadedSegment {
    return new LoadedSegment(id, data, undefined);
  }

  static fromStored(id: string, stored: StoredSegment): LoadedSegment {
    return new LoadedSegment(id, undefined, stored);
  }

  /** What a hit shows of the document: from the table when it is decoded, else from its own record. */
  doc(ordinal: number): DocRecord {
    const t = this.table;
    if (!t) return this.stored!.doc(ordinal);
    return {
      slug: t.slugs[ordinal]!,
      title: t.titles[ordinal]!,
      description: t.descriptions[ordinal]!,
      tags: t.tags[ordinal]!,
      createdAt: t.createdAt[ordinal]!,
      publishedAt: t.publishedAt[ordinal]!,
      url: t.urls[ordinal]!,
    };
  }

  private readonly slugs = new Map<number, string>();

  /** The slug of an ordinal (a tie-breaker), kept: a query full of ties asks for the same ones again. */
  slugOf(ordinal: number): string {
    if (this.table) return this.table.slugs[ordinal]!;
    let slug = this.slugs.get(ordinal);
    if (slug === undefined) {
      slug = this.stored!.doc(ordinal).slug;
      if (this.slugs.size >= KEPT_SLUGS) this.slugs.clear();
      this.slugs.set(ordinal, slug);
    }
    return slug;
  }

  /** The post id of an ordinal (the last tie-breaker). */
  idOf(ordinal: number): string {
    return this.table ? this.table.ids[ordinal]! : this.idList()[ordinal]!;
  }

  private ids: string[] | undefined;

  private idList(): string[] {
    this.ids ??= this.stored!.ids();
    return this.ids;
  }

  /** Every posting and the document table, decoded whole: for the writer's head segment and small merges. */
  get data(): SegmentData {
    // Not kept for a stored segment: only small ones are asked for whole (the head a publish rewrites).
    return this.decoded ?? this.stored!.full();
  }

  /** The segment as a merge takes it: a stored segment not decoded yet goes as its bytes, decoded where the merge runs. */
  mergePart(drop: Uint8Array | null): MergeInput {
    if (this.decoded || !this.stored) return { data: this.data, drop };
    // Decoded where the merge runs (a worker thread, for large merges), not here.
    return { stored: { key: this.stored.key, raw: this.stored.raw, postings: this.stored.postingCount }, drop };
  }

  /** Ordinal of the post in this segment (live or not), or -1. Built on first use by a writer. */
  ordinalOf(postId: string): number {
    this.ordinals ??= new Map((this.table?.ids ?? this.idList()).map((id, ordinal) => [id, ordinal]));
    return this.ordinals.get(postId) ?? -1;
  }

  /** Position of `term` in the sorted term list, or -1. */
  termIndex(term: string): number {
    const terms = this.terms;
    let lo = 0;
    let hi = terms.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const t = terms[mid]!;
      if (t === term) return mid;
      if (t < term) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /** Bytes of decoded postings kept for later queries (stored segments; at most a quarter of the stored size). */
  get keptPostingBytes(): number {
    return this.keptPostingsBytes;
  }

  /** Number of documents (live or not) holding terms[t]. */
  postingLength(t: number): number {
    return this.offsets[t + 1]! - this.offsets[t]!;
  }

  /** The documents holding terms[t], ascending, with their weighted frequencies. */
  posting(t: number): Posting {
    const data = this.decoded;
    if (data) {
      const from = data.offsets[t]!;
      const to = data.offsets[t + 1]!;
      return { docs: data.postingDocs.subarray(from, to), tfs: data.postingTfs.subarray(from, to) };
    }
    let posting = this.postings.get(t);
    if (posting) {
      // Most recently used last.
      this.postings.delete(t);
      this.postings.set(t, posting);
      return posting;
    }
    posting = this.stored!.posting(t);
    const bytes = posting.docs.byteLength + posting.tfs.byteLength + POSTING_ENTRY_BYTES;
    for (const [kept, old] of this.postings) {
      if (this.keptPostingsBytes + bytes <= this.keptPostingsBudget) break;
      this.postings.delete(kept);
      this.keptPostingsBytes -= old.docs.byteLength + old.tfs.byteLength + POSTING_ENTRY_BYTES;
    }
    // A posting larger than the whole budget is used once and not kept.
    if (bytes <= this.keptPostingsBudget) {
      this.postings.set(t, posting);
      this.keptPostingsBytes += bytes;
    }
    return posting;
  }
}

// V8 keeps a string's characters (1 or 2 bytes each) plus a header of about 16-24 bytes;
// arrays cost a pointer per element. The estimate errs on the high side (2 bytes a char).
const STRING_OVERHEAD = 24;
const SLOT = 8;

function stringsBytes(values: readonly string[]): number {
  let bytes = values.length * SLOT;
  for (const v of values) bytes += STRING_OVERHEAD + 2 * v.length;
  return bytes;
}

/** Heap bytes the decoded segment occupies, for the cache's memory budget. */
export function estimateBytes(data: SegmentData): number {
  const d = data.docs;
  let bytes =
    stringsBytes(data.terms) +
    data.offsets.byteLength +
    data.postingDocs.byteLength +
    data.postingTfs.byteLength +
    d.lengths.byteLength +
    stringsBytes(d.ids) +
    stringsBytes(d.slugs) +
    stringsBytes(d.titles) +
    stringsBytes(d.descriptions) +
    stringsBytes(d.createdAt) +
    stringsBytes(d.publishedAt) +
    stringsBytes(d.urls);
  for (const tags of d.tags) bytes += 32 + stringsBytes(tags);
  return bytes;
}

/** A segment as one manifest sees it. */
export class SegmentView {
  readonly liveDocs: number;
  readonly liveLength: number;

  constructor(
    readonly segment: LoadedSegment,
    /** 1 = deleted; null when nothing is. */
    readonly deleted: Uint8Array | null,
  ) {
    const lengths = segment.lengths;
    let live = 0;
    let length = 0;
    for (let i = 0; i < lengths.length; i++) {
      if (deleted?.[i]) continue;
      live++;
      length += lengths[i]!;
    }
    this.liveDocs = live;
    this.liveLength = length;
  }

  static of(segment: LoadedSegment, deletedOrdinals: readonly number[]): SegmentView {
    if (deletedOrdinals.length === 0) return new SegmentView(segment, null);
    const deleted = new Uint8Array(segment.docCount);
    for (const ordinal of deletedOrdinals) deleted[ordinal] = 1;
    return new SegmentView(segment, deleted);
  }

  isLive(ordinal: number): boolean {
    return !this.deleted?.[ordinal];
  }
}
