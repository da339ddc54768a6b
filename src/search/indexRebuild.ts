/**
 * Replacing a blog's stored index whole: a rebuild from its published posts (indexed afresh on
 * worker threads), or a drop. Both run under the blog's write lock (indexCommit.ts).
 */
import type { SiteStore } from '../storage/siteStore.js';
import { SEGMENT_OBJECT, type IndexCommitter, type NewSegment } from './indexCommit.js';
import { IndexSnapshot } from './indexSnapshot.js';
import { emptyManifest, manifestKey, searchPrefix, segmentIdOf, segmentKey, type Manifest } from './manifest.js';
import { rebuildLayout, type MergePolicy } from './mergePolicy.js';
import { buildSegmentsFrom, type DocumentRuns, type ParallelBuildOptions } from './parallelBuild.js';
import type { SearchIndexCache } from './searchIndexCache.js';
import type { SegmentData } from './segmentData.js';

export interface IndexRebuildDeps {
  store: SiteStore;
  cache: SearchIndexCache;
  commits: IndexCommitter;
  policy: MergePolicy;
  parallel: ParallelBuildOptions;
}

/** The documents of a rebuild: `count` of them, read by position a run at a time (DocumentRuns). */
export interface RebuildSource {
  count: number;
  read: DocumentRuns['read'];
}

/** A written segment's body, no longer held. */
const WRITTEN = Buffer.alloc(0);

/** Builds the blog's index from `source` and makes it the only one; returns the segments' data. */
export function rebuildIndex(deps: IndexRebuildDeps, blogSlug: string, source: RebuildSource): Promise<SegmentData[]> {
  const { store, commits, policy } = deps;
  return commits.exclusive(blogSlug, async () => {
    const layout = rebuildLayout(source.count, policy);
    const built = await buildSegmentsFrom({ groupSizes: [...layout.sealed, layout.head], read: source.read }, deps.parallel);
    // The old index is replaced without being read: rebuild is the way out of a corrupt or
    // unknown-format index.
    const previous = await store.get(manifestKey(blogSlug));
    const next = emptyManifest();
    const oldIds = new Set<string>();
    if (previous) {
      try {
        const old = JSON.parse(previous.body.toString('utf8')) as Partial<Manifest>;
        if (typeof old.nextSegment === 'number' && Number.isInteger(old.nextSegment)) next.nextSegment = old.nextSegment;
        if (typeof old.generation === 'number' && Number.isInteger(old.generation)) next.generation = old.generation + 1;
      } catch {
        // Unreadable: start the counters afresh; segment ids stay unique by their random part.
      }
    }
    // Listed before any new segment is written: everything there now is replaced.
    for (const key of await store.list(searchPrefix(blogSlug))) {
      const id = segmentIdOf(blogSlug, key);
      if (id) oldIds.add(id);
    }
    // One encoding at a time, each written as soon as it is made and its bytes let go: together
    // they were a fifth of a 100,000-post reindex's peak. Until the manifest names them they are
    // unread leftovers, which the next rebuild deletes with the rest.
    const prepared: NewSegment[] = [];
    for (const data of built) {
      if (data.docs.ids.length === 0) continue;
      const segment = await commits.prepare(next, data);
      await store.put(segmentKey(blogSlug, segment.entry), segment.body, SEGMENT_OBJECT);
      prepared.push({ ...segment, body: WRITTEN, written: true });
    }
    next.segments = prepared.map((p) => p.entry);
    // The last group is the head unless it came out empty (its posts left while being read).
    const head = layout.head > 0 && built[built.length - 1]!.docs.ids.length > 0;
    next.head = head ? (prepared[prepared.length - 1]?.entry.id ?? null) : null;
    await commits.commit(blogSlug, IndexSnapshot.empty(), next, prepared, [...oldIds]);
    return built;
  });
}

/** Deletes every index object of the blog. */
export function dropIndex(deps: Pick<IndexRebuildDeps, 'store' | 'cache' | 'commits'>, blogSlug: string): Promise<void> {
  const { store, cache, commits } = deps;
  return commits.exclusive(blogSlug, async () => {
    // Manifest first: readers stop seeing the index before its segments disappear.
    await store.delete(manifestKey(blogSlug));
    await store.deleteMany(await store.list(searchPrefix(blogSlug)));
    cache.install(blogSlug, null);
  });
}
