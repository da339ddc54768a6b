/**
 * The search index's heavy steps on the shared worker pool (src/heavyWork/heavyWork.ts), as the
 * server wires them into SearchIndexWriter and SearchIndexCache: indexing the documents of an
 * upsert, merging segments and decoding a stored segment, each of which can hold the event loop
 * far past its budget on a large input. Small
 * inputs are handled in place, where they cost a few milliseconds. Fairness is per blog here.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { TaskRunner } from '../workers/taskRunner.js';
import { mergeInPlace, type MergedSegment } from './segmentMerge.js';
import { decodeSegment, SearchIndexFormatError } from './segmentCodec.js';
import { buildSegmentData, postingsOf, type MergeInput, type SegmentData } from './segmentData.js';
import type { SearchDocument } from './searchTypes.js';
import { rewrittenChunk, type ChunkRewrite } from './static/chunkRewrite.js';

/** Below this, even the worst text indexes in place well within the event loop's 100 ms budget. */
export const INLINE_MAX_INDEX_CHARS = 32 * 1024;
/** Postings a merge may join in place (a few milliseconds); larger merges go to a worker. */
export const INLINE_MAX_MERGE_POSTINGS = 50_000;
/** Compressed bytes of a segment decoded in place. */
export const INLINE_MAX_DECODE_BYTES = 64 * 1024;

/** The kinds of work the search index hands to the shared worker pool (src/heavyWork/heavyTasks.ts runs them). */
export interface SearchTasks {
  /** Search documents → one index segment. */
  searchSegment: { request: SearchDocument[]; result: SegmentData };
  /** Segments → one merged segment, its ordinal maps, and its stored (gzip) form. */
  segmentMerge: { request: MergeInput[]; result: MergedOnWorker };
  /** A stored segment → its data; a format problem comes back as text, not as a thrown error. */
  segmentDecode: { request: { key: string; body: Uint8Array }; result: SegmentData | { formatError: string } };
  /** A chunk of the static index rewritten by a delta merge (static/chunkRewrite.ts). */
  staticChunk: { request: ChunkRewrite; result: string };
}

/** A merge done on a worker: MergedSegment with its stored form as bytes that can cross threads. */
export interface MergedOnWorker {
  data: SegmentData;
  ordinalMaps: Int32Array[];
  body: Uint8Array;
  rawBytes: number;
}

export interface PooledSearchWork {
  buildSegment(blogSlug: string, docs: SearchDocument[]): Promise<SegmentData>;
  mergeSegments(blogSlug: string, parts: MergeInput[]): Promise<MergedSegment>;
  decode(key: string, body: Buffer): Promise<SegmentData>;
  rewriteChunk(key: string, request: ChunkRewrite): Promise<string>;
  /**
   * After a merge's chunk rewrites: the workers that ran them are replaced. A 10,000-post
   * blog's merge (about 2,000 rewrites every 256 publishes) grows a worker's heap to 28–64 MB,
   * which V8 keeps while other tasks keep coming (soak RSS growth 16–19 MB against −4–4 MB with
   * this); a fresh worker costs about 70 ms of a core, off the event loop, once per merge.
   */
  rewritesDone(): void;
}

const tenantOf = (blogSlug: string): string => `blog:${blogSlug}`;

export function pooledSearchWork(heavy: TaskRunner<SearchTasks>): PooledSearchWork {
  return {
    buildSegment: async (blogSlug, docs) => {
      let chars = 0;
      for (const doc of docs) chars += doc.body.length + doc.title.length + doc.metaDescription.length;
      if (!heavy.available || chars <= INLINE_MAX_INDEX_CHARS) return buildSegmentData(docs);
      const data = await heavy.run(tenantOf(blogSlug), 'searchSegment', docs);
      await yieldToLoop();
      return data;
    },
    mergeSegments: async (blogSlug, parts) => {
      const postings = parts.reduce((n, part) => n + postingsOf(part), 0);
      if (!heavy.available || postings <= INLINE_MAX_MERGE_POSTINGS) return mergeInPlace(blogSlug, parts);
      const merged = await heavy.run(tenantOf(blogSlug), 'segmentMerge', parts);
      await yieldToLoop();
      const body = Buffer.from(merged.body.buffer, merged.body.byteOffset, merged.body.byteLength);
      return { data: merged.data, ordinalMaps: merged.ordinalMaps, encoded: { body, rawBytes: merged.rawBytes } };
    },
    decode: async (key, body) => {
      if (!heavy.available || body.length <= INLINE_MAX_DECODE_BYTES) return decodeSegment(key, body);
      const blog = key.split('/')[0] ?? key;
      const decoded = await heavy.run(tenantOf(blog), 'segmentDecode', { key, body });
      if ('formatError' in decoded) throw new SearchIndexFormatError(key, decoded.formatError);
      await yieldToLoop();
      return decoded;
    },
    // Always on a worker when there is one: a merge's chunks are many, each a few milliseconds of
    // parsing and serialising that would queue ahead of every publish on the event loop.
    rewriteChunk: async (key, request) => {
      if (!heavy.available) return rewrittenChunk(request);
      return heavy.run(tenantOf(key.split('/')[0] ?? key), 'staticChunk', request);
    },
    rewritesDone: () => heavy.recycle?.(),
  };
}
