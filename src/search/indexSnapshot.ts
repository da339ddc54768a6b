/**
 * One consistent state of a blog's index: a manifest and its loaded segments. Searches and
 * writes work on a snapshot; a new write produces a new snapshot, never edits one in place.
 */
import type { SegmentView } from './loadedSegment.js';
import { emptyManifest, type Manifest } from './manifest.js';

export interface DocLocation {
  segmentId: string;
  ordinal: number;
}

export class IndexSnapshot {
  /** Live documents over all segments: the N of BM25. */
  readonly liveDocs: number;
  /** Sum of live document lengths: N times the average length of BM25. */
  readonly totalLength: number;
  readonly estimatedBytes: number;

  constructor(
    readonly manifest: Manifest,
    readonly views: readonly SegmentView[],
  ) {
    let live = 0;
    let length = 0;
    let bytes = 0;
    for (const view of views) {
      live += view.liveDocs;
      length += view.liveLength;
      bytes += view.segment.estimatedBytes + (view.deleted?.byteLength ?? 0);
    }
    this.liveDocs = live;
    this.totalLength = length;
    this.estimatedBytes = bytes;
  }

  static empty(): IndexSnapshot {
    return new IndexSnapshot(emptyManifest(), []);
  }

  view(segmentId: string): SegmentView | undefined {
    return this.views.find((v) => v.segment.id === segmentId);
  }

  /** Where a post's live version is stored, if it is in the index. */
  locate(postId: string): DocLocation | undefined {
    // Segments are immutable and shared between snapshots, so their id maps are built once.
    for (const view of this.views) {
      const ordinal = view.segment.ordinalOf(postId);
      if (ordinal >= 0 && view.isLive(ordinal)) return { segmentId: view.segment.id, ordinal };
    }
    return undefined;
  }
}
