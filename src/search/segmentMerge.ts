/** Joining segments for a merge (SearchIndexWriter), in place or on a worker thread. */
import { decodeRawSegment, encodeSegment, type EncodedSegment } from './segmentCodec.js';
import { concatSegments, type MergeInput, type SegmentData, type SegmentPart } from './segmentData.js';

/** A merge's output: the joined segment, where each old ordinal went, and its stored form. */
export interface MergedSegment {
  data: SegmentData;
  ordinalMaps: Int32Array[];
  encoded: EncodedSegment;
}

/** Decodes the inputs that arrive as stored bytes (a lazily opened segment, LoadedSegment#mergePart). */
export function decodedParts(parts: readonly MergeInput[]): SegmentPart[] {
  return parts.map((part) =>
    'stored' in part
      ? {
          data: decodeRawSegment(part.stored.key, Buffer.from(part.stored.raw.buffer, part.stored.raw.byteOffset, part.stored.raw.byteLength)),
          drop: part.drop,
        }
      : part,
  );
}

export async function mergeInPlace(_blogSlug: string, parts: MergeInput[]): Promise<MergedSegment> {
  const { data, ordinalMaps } = concatSegments(decodedParts(parts));
  return { data, ordinalMaps, encoded: await encodeSegment(data) };
}
