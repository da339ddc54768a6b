/** Joining segments for a merge (SearchIndexWriter), in place or on a worker thread. */
import { encodeSegment, type EncodedSegment } from './segmentCodec.js';
import { concatSegments, type SegmentData, type SegmentPart } from './segmentData.js';

/** A merge's output: the joined segment, where each old ordinal went, and its stored form. */
export interface MergedSegment {
  data: SegmentData;
  ordinalMaps: Int32Array[];
  encoded: EncodedSegment;
}

export async function mergeInPlace(_blogSlug: string, parts: SegmentPart[]): Promise<MergedSegment> {
  const { data, ordinalMaps } = concatSegments(parts);
  return { data, ordinalMaps, encoded: await encodeSegment(data) };
}
