/**
 * The kinds of work the shared worker pool does: everything whose cost grows with a post's size
 * and would otherwise run on the event loop (see heavyWork.ts). Each kind is a pure function of
 * plain data, so it runs the same in place or on a worker thread.
 */
import { htmlToPlainText } from '../content/markdown.js';
import { derivePostContent, type PostContent, type PostContentInput } from '../content/postContent.js';
import { buildSegmentData, segmentTransferList, type SegmentData } from '../search/segmentData.js';
import type { SearchDocument } from '../search/searchTypes.js';

export interface HeavyTasks {
  /** Markdown → sanitised HTML, description and prose counts. */
  postContent: { request: PostContentInput; result: PostContent };
  /** Stored HTML → the plain text the search index takes. */
  plainText: { request: string; result: string };
  /** Search documents → one index segment. */
  searchSegment: { request: SearchDocument[]; result: SegmentData };
}

export type HeavyKind = keyof HeavyTasks;

export type HeavyRequest = { [K in HeavyKind]: { kind: K; request: HeavyTasks[K]['request'] } }[HeavyKind];
export type HeavyResult = HeavyTasks[HeavyKind]['result'];

export function runHeavyTask(task: HeavyRequest): HeavyResult {
  switch (task.kind) {
    case 'postContent':
      return derivePostContent(task.request);
    case 'plainText':
      return htmlToPlainText(task.request);
    case 'searchSegment':
      return buildSegmentData(task.request);
  }
}

/** The typed arrays of a segment move to the main thread instead of being copied. */
export function heavyTransferList(result: HeavyResult): ArrayBuffer[] {
  return typeof result === 'object' && 'offsets' in result ? segmentTransferList(result) : [];
}
