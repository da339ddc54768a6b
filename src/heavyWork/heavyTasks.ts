/**
 * The kinds of work the shared worker pool does: everything whose cost grows with a post's size
 * and would otherwise run on the event loop (see heavyWork.ts). Each kind is a pure function of
 * plain data, so it runs the same in place or on a worker thread.
 */
import type { ContentTasks } from '../content/contentRenderer.js';
import type { CardTasks } from '../publish/cards/cardDrawer.js';
import { drawCard } from '../publish/cards/drawCard.js';
import { htmlToSearchText } from '../content/markdown.js';
import { derivePostContent } from '../content/postContent.js';
import type { SearchTasks } from '../search/pooledSearchWork.js';
import { buildSegmentData, concatSegments, segmentTransferList } from '../search/segmentData.js';
import { decodedParts } from '../search/segmentMerge.js';
import { decodeSegmentSync, encodeSegmentSync, SearchIndexFormatError } from '../search/segmentCodec.js';
import { rewrittenChunk } from '../search/static/chunkRewrite.js';

/** Every kind the pool runs: each caller declares its own (ContentTasks, SearchTasks). */
export interface HeavyTasks extends ContentTasks, SearchTasks, CardTasks {}

export type HeavyKind = keyof HeavyTasks;

export type HeavyRequest = { [K in HeavyKind]: { kind: K; request: HeavyTasks[K]['request'] } }[HeavyKind];
export type HeavyResult = HeavyTasks[HeavyKind]['result'];

/** Synchronous but for a card, whose drawing libraries answer with promises. */
export function runHeavyTask(task: HeavyRequest): HeavyResult | Promise<HeavyResult> {
  switch (task.kind) {
    case 'postContent':
      return derivePostContent(task.request);
    case 'searchText':
      return htmlToSearchText(task.request);
    case 'searchSegment':
      return buildSegmentData(task.request);
    case 'segmentMerge': {
      const { data, ordinalMaps } = concatSegments(decodedParts(task.request));
      const encoded = encodeSegmentSync(data);
      // Copied into a buffer of its own: zlib's may be shared, and only an own buffer can move.
      return { data, ordinalMaps, body: new Uint8Array(encoded.body), rawBytes: encoded.rawBytes };
    }
    case 'drawCard':
      return drawCard(task.request);
    case 'staticChunk':
      return rewrittenChunk(task.request);
    case 'segmentDecode':
      try {
        return decodeSegmentSync(task.request.key, Buffer.from(task.request.body.buffer, task.request.body.byteOffset, task.request.body.byteLength));
      } catch (err) {
        if (err instanceof SearchIndexFormatError) return { formatError: err.problem };
        throw err;
      }
  }
}

/** The typed arrays of a segment move to the main thread instead of being copied. */
export function heavyTransferList(result: HeavyResult): ArrayBuffer[] {
  if (typeof result !== 'object') return [];
  // A card's PNG (drawCard.ts gives it a buffer of its own).
  if (result instanceof Uint8Array) return result.buffer instanceof ArrayBuffer ? [result.buffer] : [];
  if ('offsets' in result) return segmentTransferList(result);
  if ('ordinalMaps' in result) {
    const own = [...result.ordinalMaps.map((map) => map.buffer), result.body.buffer].filter((b): b is ArrayBuffer => b instanceof ArrayBuffer);
    return [...segmentTransferList(result.data), ...own];
  }
  return [];
}
