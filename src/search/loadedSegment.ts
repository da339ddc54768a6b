/**
 * A segment in memory, plus the per-manifest view of it (which of its documents are deleted).
 * LoadedSegment is immutable and shared by every snapshot that lists its id; only the
 * deletion bitmap differs between snapshots.
 */
import type { SegmentData } from './segmentData.js';

export class LoadedSegment {
  /** publishedAt as epoch ms (the second sort key), parsed once at load. */
  readonly publishedMs: Float64Array;
  readonly estimatedBytes: number;

  constructor(
    readonly id: string,
    readonly data: SegmentData,
  ) {
    this.publishedMs = Float64Array.from(data.docs.publishedAt, (iso) => {
      const ms = Date.parse(iso);
      return Number.isNaN(ms) ? Number.NEGATIVE_INFINITY : ms;
    });
    this.estimatedBytes = estimateBytes(data) + this.publishedMs.byteLength;
  }

  private ordinals: Map<string, number> | undefined;

  get docCount(): number {
    return this.data.docs.ids.length;
  }

  /** Ordinal of the post in this segment (live or not), or -1. Built on first use by a writer. */
  ordinalOf(postId: string): number {
    this.ordinals ??= new Map(this.data.docs.ids.map((id, ordinal) => [id, ordinal]));
    return this.ordinals.get(postId) ?? -1;
  }

  /** Position of `term` in the sorted term list, or -1. */
  termIndex(term: string): number {
    const terms = this.data.terms;
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
    const lengths = segment.data.docs.lengths;
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
