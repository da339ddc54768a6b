/**
 * What every write of a blog's stored index shares (SearchIndexWriter's upserts and removes,
 * indexMerger.ts, indexRebuild.ts): the per-blog lock, what a write reads, and the commit.
 *
 * Writes to one blog run one at a time, so two publishes in this process cannot lose each
 * other's update. One writer per process is assumed; the manifest is the commit point, written
 * after the segments it names, and replaced segments are deleted after it.
 */
import { KeyedQueue } from '../lib/keyedQueue.js';
import type { SiteStore } from '../storage/siteStore.js';
import { IndexSnapshot } from './indexSnapshot.js';
import { LoadedSegment, SegmentView } from './loadedSegment.js';
import { allocateSegmentId, manifestKey, segmentKey, segmentKeysOf, serializeManifest, type Manifest, type SegmentEntry } from './manifest.js';
import type { SearchIndexCache } from './searchIndexCache.js';
import { encodeSegment, SEGMENT_FORMAT_VERSION, type EncodedSegment } from './segmentCodec.js';
import type { SegmentData } from './segmentData.js';
import type { WriteBase, WriteBases } from './writeBase.js';

export const SEGMENT_OBJECT = { contentType: 'application/octet-stream', cacheControl: 'private, max-age=31536000, immutable' };
const MANIFEST_OBJECT = { contentType: 'application/json', cacheControl: 'no-cache' };

export interface NewSegment {
  entry: SegmentEntry;
  segment: LoadedSegment;
  body: Buffer;
  /** Already in the store (a merge writes its output before taking the lock). */
  written?: boolean;
}

export interface IndexCommitterDeps {
  store: SiteStore;
  /** Made current by every commit, so the next query sees it at once. */
  cache: SearchIndexCache;
  /** What upserts and removes read of an index not in memory (writeBase.ts). */
  bases: WriteBases;
}

export class IndexCommitter {
  private readonly writes = new KeyedQueue();

  constructor(private readonly deps: IndexCommitterDeps) {}

  /** Runs `task` after every earlier write of the blog has settled. */
  exclusive<T>(blogSlug: string, task: () => Promise<T>): Promise<T> {
    return this.writes.run(blogSlug, task);
  }

  /** What an upsert or a remove reads: the index in memory, or only the parts it needs (writeBase.ts). */
  base(blogSlug: string): Promise<WriteBase> {
    return this.deps.bases.open(blogSlug, async () => (await this.deps.cache.snapshot(blogSlug, { fresh: true })) ?? IndexSnapshot.empty());
  }

  /** Encodes a segment under a new id of `manifest`; the object is not written yet. */
  async prepare(manifest: Manifest, data: SegmentData, done?: EncodedSegment): Promise<NewSegment> {
    const id = allocateSegmentId(manifest);
    const encoded = done ?? (await encodeSegment(data));
    return {
      entry: { id, docs: data.docs.ids.length, deleted: [], bytes: encoded.body.length, rawBytes: encoded.rawBytes, format: SEGMENT_FORMAT_VERSION },
      segment: LoadedSegment.fromData(id, data),
      body: encoded.body,
    };
  }

  /**
   * Writes new segments, then the manifest (the commit), then deletes segments it no longer
   * names, and makes the new state current in the cache.
   */
  async commit(blogSlug: string, base: IndexSnapshot | null, next: Manifest, added: readonly NewSegment[], replaced: readonly string[]): Promise<void> {
    const { store, cache, bases } = this.deps;
    const gone = new Set(replaced);
    for (const s of added) if (!next.segments.some((e) => e.id === s.entry.id)) next.segments.push(s.entry);
    // A segment whose documents are all deleted carries nothing; drop it now.
    next.segments = next.segments.filter((s) => {
      if (s.deleted.length < s.docs) return true;
      gone.add(s.id);
      return false;
    });
    if (next.head && !next.segments.some((s) => s.id === next.head)) next.head = null;

    const kept = added.filter((s) => next.segments.some((e) => e.id === s.entry.id));
    await Promise.all(kept.filter((s) => !s.written).map((s) => store.put(segmentKey(blogSlug, s.entry), s.body, SEGMENT_OBJECT)));
    await store.put(manifestKey(blogSlug), serializeManifest(next), MANIFEST_OBJECT);

    if (base) {
      const loaded = new Map<string, LoadedSegment>([
        ...base.views.map((v) => [v.segment.id, v.segment] as const),
        ...kept.map((s) => [s.entry.id, s.segment] as const),
      ]);
      const views = next.segments.map((entry) => SegmentView.of(loaded.get(entry.id)!, entry.deleted));
      cache.install(blogSlug, new IndexSnapshot(next, views));
    } else {
      // Written from the parts a write needs: whatever the cache held is older than this
      // state, and the next query reads the index as the new manifest names it.
      cache.install(blogSlug, null);
      bases.wrote(
        blogSlug,
        kept.filter((s) => s.entry.id === next.head).map((s) => s.segment),
      );
    }

    const stale = [...gone].filter((id) => !next.segments.some((s) => s.id === id));
    if (stale.length > 0) await store.deleteMany(stale.flatMap((id) => segmentKeysOf(blogSlug, id)));
  }
}
