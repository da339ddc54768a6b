/**
 * What a write (upsert, remove) reads of a blog's current index. When the cache holds the index
 * as the manifest names it, that snapshot. Otherwise — the first publish after a restart, or a
 * blog whose index was evicted — only what the write needs: the manifest, the head segment it
 * rewrites, and the post ids of the other segments (segmentIds.ts), to find the older version
 * of a post. The whole index is then read by the next query, not by the publish.
 */
import type { SiteStore } from '../storage/siteStore.js';
import type { DocLocation, IndexSnapshot } from './indexSnapshot.js';
import { SegmentView, type LoadedSegment } from './loadedSegment.js';
import { manifestKey, parseManifest, segmentKey, type Manifest, type SegmentEntry } from './manifest.js';
import type { SearchIndexCache } from './searchIndexCache.js';
import { SegmentIds } from './segmentIds.js';

export interface WriteBase {
  readonly manifest: Manifest;
  /** The whole index when it was in memory; null when only what a write needs was read. */
  readonly snapshot: IndexSnapshot | null;
  /** Where a post's live version is stored, if it is in the index. */
  locate(postId: string): DocLocation | undefined;
  /** A loaded segment's view: any of a snapshot's, the head's of a partial base. */
  view(segmentId: string): SegmentView | undefined;
}

export function snapshotBase(snapshot: IndexSnapshot): WriteBase {
  return { manifest: snapshot.manifest, snapshot, locate: (postId) => snapshot.locate(postId), view: (segmentId) => snapshot.view(segmentId) };
}

type Opened = LoadedSegment | SegmentIds;

/** Blogs whose segment ids are kept between writes. */
const BLOGS_KEPT = 16;
const OPEN_ATTEMPTS = 3;

export class WriteBases {
  /** Per blog, the segments opened for writes, by id: segments never change under an id. */
  private readonly opened = new Map<string, Map<string, Opened>>();

  constructor(
    private readonly store: SiteStore,
    private readonly cache: SearchIndexCache,
  ) {}

  /** The blog's index as a write needs it; `loadFull` is the way when there is no manifest or no part can be read alone. */
  async open(blogSlug: string, loadFull: () => Promise<IndexSnapshot>): Promise<WriteBase> {
    for (let attempt = 1; attempt <= OPEN_ATTEMPTS; attempt++) {
      const key = manifestKey(blogSlug);
      const object = await this.store.get(key);
      if (!object) break;
      const manifest = parseManifest(key, object.body);
      const held = this.cache.peek(blogSlug);
      if (held && held.manifest.revision === manifest.revision) return snapshotBase(held);
      const base = await this.openParts(blogSlug, manifest);
      // null: a segment went between the two reads (another process merged); read the manifest again.
      if (base) return base;
    }
    return snapshotBase(await loadFull());
  }

  /** Views of these segments of the base, read whole when the base has only their ids; null when one is gone. */
  async views(blogSlug: string, base: WriteBase, segmentIds: readonly string[]): Promise<SegmentView[] | null> {
    const views: SegmentView[] = [];
    for (const id of segmentIds) {
      let view = base.view(id);
      if (!view) {
        const entry = base.manifest.segments.find((s) => s.id === id);
        const segment = entry ? await this.cache.openSegment(blogSlug, entry) : null;
        if (!entry || !segment) return null;
        view = SegmentView.of(segment, entry.deleted);
      }
      views.push(view);
    }
    return views;
  }

  /** Lets go of every blog's opened segments (a server at rest); a write in flight keeps its own. */
  release(): void {
    this.opened.clear();
  }

  /**
   * Keeps the segments a write of this process just stored (the new head): the next write of the
   * blog finds them here instead of reading them back.
   */
  wrote(blogSlug: string, segments: readonly LoadedSegment[]): void {
    const opened = this.opened.get(blogSlug);
    if (opened) for (const segment of segments) opened.set(segment.id, segment);
  }

  private async openParts(blogSlug: string, manifest: Manifest): Promise<WriteBase | null> {
    const before = this.opened.get(blogSlug);
    // All at once: one after another, each read waited for a turn of an event loop that a
    // restarted server's first requests keep busy, and the warm-up ended after the publish it was for.
    const parts = await Promise.all(manifest.segments.map((entry) => before?.get(entry.id) ?? this.openPart(blogSlug, entry, entry.id === manifest.head)));
    const now = new Map<string, Opened>();
    for (const [i, entry] of manifest.segments.entries()) {
      const part = parts[i];
      if (!part) return null;
      now.set(entry.id, part);
    }
    this.opened.delete(blogSlug);
    this.opened.set(blogSlug, now);
    for (const blog of this.opened.keys()) {
      if (this.opened.size <= BLOGS_KEPT) break;
      this.opened.delete(blog);
    }
    const views = new Map<string, SegmentView>();
    for (const entry of manifest.segments) {
      const part = now.get(entry.id)!;
      if (!(part instanceof SegmentIds)) views.set(entry.id, SegmentView.of(part, entry.deleted));
    }
    return {
      manifest,
      snapshot: null,
      view: (segmentId) => views.get(segmentId),
      locate: (postId) => {
        for (const entry of manifest.segments) {
          const ordinal = now.get(entry.id)!.ordinalOf(postId);
          if (ordinal >= 0 && !entry.deleted.includes(ordinal)) return { segmentId: entry.id, ordinal };
        }
        return undefined;
      },
    };
  }

  /** The head whole (a write rewrites it); of any other current segment, its ids. */
  private async openPart(blogSlug: string, entry: SegmentEntry, head: boolean): Promise<Opened | null> {
    // Older formats are compressed whole: no part of them can be read alone.
    if (head || entry.format !== 3 || entry.bytes !== entry.rawBytes) return this.cache.openSegment(blogSlug, entry);
    const key = segmentKey(blogSlug, entry);
    return SegmentIds.read(key, (start, end) => this.store.getRange(key, start, end));
  }
}
