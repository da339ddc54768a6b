/**
 * The segment builder the server gives SearchIndexWriter: the documents of an upsert are
 * indexed in place when small, on the shared worker pool when large (1 MB of distinct words
 * takes about 400 ms to index). Fairness is per blog here; the account's own share already
 * bounds the content rendering that precedes every upsert.
 */
import type { HeavyWork } from '../workers/heavyWork.js';
import { buildSegmentData, type SegmentData } from './segmentData.js';
import type { SearchDocument } from './searchTypes.js';

/** About 2.5 µs per character for the worst text measured: 32 K characters stay near 15 ms. */
export const INLINE_MAX_INDEX_CHARS = 32 * 1024;

export function pooledSegmentBuilder(heavy: HeavyWork): (blogSlug: string, docs: SearchDocument[]) => Promise<SegmentData> {
  return async (blogSlug, docs) => {
    let chars = 0;
    for (const doc of docs) chars += doc.body.length + doc.title.length + doc.metaDescription.length;
    if (!heavy.available || chars <= INLINE_MAX_INDEX_CHARS) return buildSegmentData(docs);
    return heavy.run(`blog:${blogSlug}`, 'searchSegment', docs);
  };
}
