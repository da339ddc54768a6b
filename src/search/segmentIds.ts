/**
 * The post ids of a stored version 3 segment, read on their own: two byte ranges (the header,
 * then the ids block) instead of the whole segment. A publish in a blog whose index is not in
 * memory needs nothing else of its sealed segments: only where the post's older version is, to
 * mark it deleted. The ids are a small fraction of the segments' bytes, and a new post's id is
 * looked for in the raw bytes without parsing any of them.
 */
import { PREFIX_BYTES, isStringArray, readHeaderV3 } from './segmentV3.js';
import { SearchIndexFormatError } from './segmentErrors.js';

/** Reads bytes [start, end) of the segment object; null when it is gone. */
export type RangeReader = (start: number, end: number) => Promise<Buffer | null>;

/** Bytes read first: the prefix and, for every segment written so far, the whole header. */
const FIRST_READ = 1024;

export class SegmentIds {
  private parsed: string[] | null = null;

  private constructor(
    readonly key: string,
    readonly docCount: number,
    /** The ids block: a JSON array of strings. */
    private readonly block: Buffer,
  ) {}

  /** The segment's ids, or null when the object is gone (a writer replaced it meanwhile). */
  static async read(key: string, read: RangeReader): Promise<SegmentIds | null> {
    let first = await read(0, FIRST_READ);
    if (!first) return null;
    const headerEnd = first.length >= PREFIX_BYTES ? PREFIX_BYTES + first.readUInt32LE(6) : 0;
    if (headerEnd > first.length && first.length === FIRST_READ) {
      first = await read(0, headerEnd);
      if (!first) return null;
    }
    const { header, headerEnd: end } = readHeaderV3(key, first);
    const idsAt = end + header.blocks[0];
    const block = await read(idsAt, idsAt + header.blocks[1]);
    if (!block) return null;
    if (block.length !== header.blocks[1]) throw new SearchIndexFormatError(key, 'segment is shorter than its header says');
    return new SegmentIds(key, header.docs, block);
  }

  /** Ordinal of the post in the segment (live or not), or -1. */
  ordinalOf(postId: string): number {
    // An id is stored as its JSON string: one not found among the bytes is not in the segment,
    // which is the answer for every segment when a post is published for the first time.
    if (this.block.indexOf(JSON.stringify(postId)) < 0) return -1;
    return this.ids().indexOf(postId);
  }

  private ids(): string[] {
    if (!this.parsed) {
      let ids: unknown;
      try {
        ids = JSON.parse(this.block.toString('utf8'));
      } catch {
        throw new SearchIndexFormatError(this.key, 'segment ids are malformed');
      }
      if (!isStringArray(ids, this.docCount)) throw new SearchIndexFormatError(this.key, 'segment ids are malformed');
      this.parsed = ids;
    }
    return this.parsed;
  }
}
