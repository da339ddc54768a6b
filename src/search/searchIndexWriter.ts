/**
 * Keeps a blog's stored index in step with its published posts (used by the publisher).
 *
 * - `upsert` rewrites only the small head segment and the manifest; an older version of the
 *   post elsewhere gets a tombstone. Its cost depends on the head (≤ headMaxDocs), not the blog.
 * - `remove` only adds tombstones to the manifest.
 * - `merge` applies the tiered policy (mergePolicy.ts); the heavy part runs outside the blog's
 *   lock, so publishes are not held up by it, and deletions made meanwhile are carried over.
 * - `rebuild` indexes everything afresh on worker threads; `drop` deletes every index object.
 *
 * Writes to one blog are serialised by a promise chain, so two publishes in this process cannot
 * lose each other's update. One writer per process is assumed; the manifest is the commit
 * point, written after the segments it names, and replaced segments are deleted after it.
 */
import type { SiteStore } from '../storage/siteStore.js';
import { IndexSnapshot } from './indexSnapshot.js';
import { LoadedSegment, SegmentView } from './loadedSegment.js';
import {
  addTombstone,
  allocateSegmentId,
  emptyManifest,
  manifestKey,
  nextManifest,
  searchPrefix,
  segmentIdOf,
  setTombstones,
  segmentKey,
  segmentKeysOf,
  serializeManifest,
  type Manifest,
  type SegmentEntry,
} from './manifest.js';
import { DEFAULT_MERGE_POLICY, planMerge, rebuildLayout, type MergePolicy } from './mergePolicy.js';
import { buildSegmentsFrom, type DocumentRuns, type ParallelBuildOptions } from './parallelBuild.js';
import { SearchIndexCache } from './searchIndexCache.js';
import { encodeSegment, SEGMENT_FORMAT_VERSION, type EncodedSegment } from './segmentCodec.js';
import { mergeInPlace, type MergedSegment } from './segmentMerge.js';
import { buildSegmentData, concatSegments, type MergeInput, type SegmentData } from './segmentData.js';
import type { SearchDocument } from './searchTypes.js';
import { WriteBases, type WriteBase } from './writeBase.js';
import { KeyedQueue } from '../lib/keyedQueue.js';
import { SingleFlight } from '../lib/singleFlight.js';

export interface SearchIndexWriterOptions extends Partial<MergePolicy>, ParallelBuildOptions {
  /** Shared with the searcher so its next query sees this writer's changes at once. */
  cache?: SearchIndexCache;
  /** Run `merge` in the background after a write that leaves the index out of shape (default true). */
  autoMerge?: boolean;
  /** Failures of background merges; the index stays correct, only unmerged. */
  onBackgroundError?: (err: unknown, blogSlug: string) => void;
  /**
   * Indexes the documents of an upsert. The default does it in place; the server hands large
   * documents to worker threads (indexing 1 MB of words takes hundreds of milliseconds).
   */
  buildSegment?: (blogSlug: string, docs: SearchDocument[]) => Promise<SegmentData>;
  /**
   * Joins and encodes the segments of a merge. The default does it in place; the server uses
   * worker threads (a merge of four 2,500-post segments takes about half a second to join and
   * two to encode).
   */
  mergeSegments?: (blogSlug: string, parts: MergeInput[]) => Promise<MergedSegment>;
}

export interface MergeReport {
  /** Merge steps committed (each replaced one group of segments). */
  merges: number;
  segments: number;
}

const SEGMENT_OBJECT = { contentType: 'application/octet-stream', cacheControl: 'private, max-age=31536000, immutable' };
const MANIFEST_OBJECT = { contentType: 'application/json', cacheControl: 'no-cache' };
/** Safety net: a merge pass stops after this many steps even if the policy still asks for more. */
const MAX_MERGE_STEPS = 64;

interface NewSegment {
  entry: SegmentEntry;
  segment: LoadedSegment;
  body: Buffer;
  /** Already in the store (a merge writes its output before taking the lock). */
  written?: boolean;
}

export class SearchIndexWriter {
  private readonly cache: SearchIndexCache;
  private readonly policy: MergePolicy;
  /** Writes to one blog, one at a time. */
  private readonly writes = new KeyedQueue();
  /** Merges of one blog, one at a time (their heavy part runs outside `writes`). */
  private readonly merges = new KeyedQueue();
  /** The background merge of each blog, at most one at a time. */
  private readonly background = new SingleFlight<string, void>();
  /** What upserts and removes read of an index not in memory (writeBase.ts). */
  private readonly bases: WriteBases;

  constructor(
    private readonly store: SiteStore,
    private readonly options: SearchIndexWriterOptions = {},
  ) {
    this.cache = options.cache ?? new SearchIndexCache(store);
    this.bases = new WriteBases(store, this.cache);
    this.policy = {
      headMaxDocs: options.headMaxDocs ?? DEFAULT_MERGE_POLICY.headMaxDocs,
      mergeFactor: options.mergeFactor ?? DEFAULT_MERGE_POLICY.mergeFactor,
      maxDeletedRatio: options.maxDeletedRatio ?? DEFAULT_MERGE_POLICY.maxDeletedRatio,
    };
  }

  /**
   * Reads what the blog's next upsert reads: the head segment and the post ids of the others,
   * unless the whole index is in memory (the warm-up after a restart, for blogs that were
   * publishing). Its queries load the rest when they come.
   */
  async warm(blogSlug: string): Promise<void> {
    await this.exclusive(blogSlug, () => this.base(blogSlug));
  }

  /**
   * The CPU side of an upsert of these documents, with nothing read or written: building their
   * segment, joining it to a head, encoding it. A restarted server's warm-up runs it so that the
   * first real publish finds the code compiled.
   */
  async rehearse(docs: readonly SearchDocument[]): Promise<void> {
    const fresh = this.options.buildSegment ? await this.options.buildSegment('', [...docs]) : buildSegmentData(docs);
    const joined = concatSegments([
      { data: fresh, drop: null },
      { data: fresh, drop: null },
    ]).data;
    await encodeSegment(joined);
    LoadedSegment.fromData('rehearsal', joined);
  }

  /** Adds or replaces posts (matched by id). */
  async upsert(blogSlug: string, docs: readonly SearchDocument[]): Promise<void> {
    if (docs.length === 0) return;
    const manifest = await this.exclusive(blogSlug, async () => {
      const base = await this.base(blogSlug);
      const latest = latestById(docs);
      const next = nextManifest(base.manifest);
      const headView = next.head ? base.view(next.head) : undefined;
      const headDrop = headView ? (headView.deleted?.slice() ?? new Uint8Array(headView.segment.docCount)) : null;
      for (const doc of latest) {
        const at = base.locate(doc.id);
        if (!at) continue;
        if (headDrop && at.segmentId === next.head) headDrop[at.ordinal] = 1;
        else addTombstone(next, at.segmentId, at.ordinal);
      }

      const fresh = this.options.buildSegment ? await this.options.buildSegment(blogSlug, latest) : buildSegmentData(latest);
      const replaced: string[] = [];
      let headData: SegmentData = fresh;
      if (headView && headDrop) {
        const headLive = headDrop.reduce((n, dropped) => n + (dropped ? 0 : 1), 0);
        if (headLive + latest.length <= this.policy.headMaxDocs) {
          headData = concatSegments([
            { data: headView.segment.data, drop: headDrop },
            { data: fresh, drop: null },
          ]).data;
          next.segments = next.segments.filter((s) => s.id !== headView.segment.id);
          replaced.push(headView.segment.id);
        } else {
          // The head is full: it is sealed as it is, its dropped documents become tombstones.
          setTombstones(next, headView.segment.id, headDrop);
        }
      }
      const head = await this.prepare(next, headData);
      next.head = head.entry.id;
      await this.commit(blogSlug, base.snapshot, next, [head], replaced);
      return next;
    });
    this.mergeLater(blogSlug, manifest);
  }

  /** Removes posts (unpublished or deleted); unknown ids are ignored. */
  async remove(blogSlug: string, postIds: readonly string[]): Promise<void> {
    if (postIds.length === 0) return;
    const manifest = await this.exclusive(blogSlug, async () => {
      const base = await this.base(blogSlug);
      const next = nextManifest(base.manifest);
      let changed = false;
      for (const id of new Set(postIds)) {
        const at = base.locate(id);
        if (!at) continue;
        addTombstone(next, at.segmentId, at.ordinal);
        changed = true;
      }
      if (!changed) return null;
      await this.commit(blogSlug, base.snapshot, next, [], []);
      return next;
    });
    if (manifest) this.mergeLater(blogSlug, manifest);
  }

  /** Merges until the policy is satisfied. Safe to call at any time; merges of a blog never overlap. */
  async merge(blogSlug: string): Promise<MergeReport> {
    return this.merges.run(blogSlug, () => this.mergeNow(blogSlug));
  }

  /**
   * Replaces the blog's index with one built from `docs` (all its published posts). Returns the
   * segments' data (the static index is laid out from them instead of indexing the posts again).
   */
  rebuild(blogSlug: string, docs: readonly SearchDocument[]): Promise<SegmentData[]> {
    const all = latestById(docs);
    return this.rebuildFrom(blogSlug, { count: all.length, read: async (from, to) => all.slice(from, to) });
  }

  /**
   * rebuild, reading the documents a run at a time while the index is built (DocumentRuns), so
   * a large blog's text is never all in memory: `count` documents, read by position.
   */
  async rebuildFrom(blogSlug: string, source: { count: number; read: DocumentRuns['read'] }): Promise<SegmentData[]> {
    return this.exclusive(blogSlug, async () => {
      const layout = rebuildLayout(source.count, this.policy);
      const built = await buildSegmentsFrom({ groupSizes: [...layout.sealed, layout.head], read: source.read }, this.options);
      // The old index is replaced without being read: rebuild is the way out of a corrupt or
      // unknown-format index.
      const previous = await this.store.get(manifestKey(blogSlug));
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
      // Ids are taken in order first; the encodings then compress in parallel (zlib's threads).
      const prepared = await Promise.all(built.filter((data) => data.docs.ids.length > 0).map((data) => this.prepare(next, data)));
      next.segments = prepared.map((p) => p.entry);
      // The last group is the head unless it came out empty (its posts left while being read).
      const head = layout.head > 0 && built[built.length - 1]!.docs.ids.length > 0;
      next.head = head ? (prepared[prepared.length - 1]?.entry.id ?? null) : null;
      for (const key of await this.store.list(searchPrefix(blogSlug))) {
        const id = segmentIdOf(blogSlug, key);
        if (id) oldIds.add(id);
      }
      await this.commit(blogSlug, IndexSnapshot.empty(), next, prepared, [...oldIds]);
      return built;
    });
  }

  /** Deletes every index object of the blog. */
  async drop(blogSlug: string): Promise<void> {
    await this.exclusive(blogSlug, async () => {
      // Manifest first: readers stop seeing the index before its segments disappear.
      await this.store.delete(manifestKey(blogSlug));
      await this.store.deleteMany(await this.store.list(searchPrefix(blogSlug)));
      this.cache.install(blogSlug, null);
    });
  }

  /** Resolves when background merges started so far have finished (tests, shutdown). */
  async idle(): Promise<void> {
    await this.background.idle();
  }

  private async current(blogSlug: string): Promise<IndexSnapshot> {
    return (await this.cache.snapshot(blogSlug, { fresh: true })) ?? IndexSnapshot.empty();
  }

  /** What an upsert or a remove reads: the index in memory, or only the parts it needs (writeBase.ts). */
  private base(blogSlug: string): Promise<WriteBase> {
    return this.bases.open(blogSlug, () => this.current(blogSlug));
  }

  private exclusive<T>(blogSlug: string, task: () => Promise<T>): Promise<T> {
    return this.writes.run(blogSlug, task);
  }

  /** Encodes a segment under a new id of `manifest`; the object is not written yet. */
  private async prepare(manifest: Manifest, data: SegmentData, done?: EncodedSegment): Promise<NewSegment> {
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
  private async commit(blogSlug: string, base: IndexSnapshot | null, next: Manifest, added: readonly NewSegment[], replaced: readonly string[]): Promise<void> {
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
    await Promise.all(kept.filter((s) => !s.written).map((s) => this.store.put(segmentKey(blogSlug, s.entry), s.body, SEGMENT_OBJECT)));
    await this.store.put(manifestKey(blogSlug), serializeManifest(next), MANIFEST_OBJECT);

    if (base) {
      const loaded = new Map<string, LoadedSegment>([...base.views.map((v) => [v.segment.id, v.segment] as const), ...kept.map((s) => [s.entry.id, s.segment] as const)]);
      const views = next.segments.map((entry) => SegmentView.of(loaded.get(entry.id)!, entry.deleted));
      this.cache.install(blogSlug, new IndexSnapshot(next, views));
    } else {
      // Written from the parts a write needs: whatever the cache held is older than this
      // state, and the next query reads the index as the new manifest names it.
      this.cache.install(blogSlug, null);
      this.bases.wrote(blogSlug, kept.filter((s) => s.entry.id === next.head).map((s) => s.segment));
    }

    const stale = [...gone].filter((id) => !next.segments.some((s) => s.id === id));
    if (stale.length > 0) await this.store.deleteMany(stale.flatMap((id) => segmentKeysOf(blogSlug, id)));
  }

  /**
   * Deletes segment objects the manifest does not name: leftovers of a write that failed after
   * storing its segment. Under the lock, so no write is between its segment and its manifest.
   */
  private async sweep(blogSlug: string): Promise<void> {
    await this.exclusive(blogSlug, async () => {
      const named = new Set((await this.base(blogSlug)).manifest.segments.map((s) => s.id));
      const orphans = (await this.store.list(searchPrefix(blogSlug))).filter((key) => {
        const id = segmentIdOf(blogSlug, key);
        return id !== null && !named.has(id);
      });
      if (orphans.length > 0) await this.store.deleteMany(orphans);
    });
  }

  private mergeLater(blogSlug: string, manifest: Manifest): void {
    if (this.options.autoMerge === false || this.background.has(blogSlug)) return;
    if (!planMerge(manifest, this.policy)) return;
    const onError = this.options.onBackgroundError ?? ((err: unknown, blog: string) => process.emitWarning(`search index merge of ${blog} failed: ${String(err)}`));
    // The failure is handed to onBackgroundError; the index stays correct without the merge.
    void this.background.load(blogSlug, () =>
      this.merge(blogSlug).then(
        () => undefined,
        (err: unknown) => onError(err, blogSlug),
      ),
    );
  }

  private async mergeNow(blogSlug: string): Promise<MergeReport> {
    let merges = 0;
    for (let step = 0; step < MAX_MERGE_STEPS; step++) {
      const base = await this.exclusive(blogSlug, () => this.base(blogSlug));
      const group = planMerge(base.manifest, this.policy);
      if (!group) {
        await this.sweep(blogSlug);
        return { merges, segments: base.manifest.segments.length };
      }
      // Only the segments merged are read whole, not every segment of the blog.
      const views = await this.bases.views(blogSlug, base, group);
      if (!views) continue; // one went meanwhile (another process merged): plan again
      // The expensive part, outside the lock: publishes continue meanwhile.
      const joined = await (this.options.mergeSegments ?? mergeInPlace)(blogSlug, views.map((v) => v.segment.mergePart(v.deleted)));
      const { data, ordinalMaps } = joined;
      const draft = nextManifest(base.manifest);
      const merged = data.docs.ids.length > 0 ? await this.prepare(draft, data, joined.encoded) : null;
      if (merged) await this.store.put(segmentKey(blogSlug, merged.entry), merged.body, SEGMENT_OBJECT);

      const committed = await this.exclusive(blogSlug, async () => {
        const now = await this.base(blogSlug);
        const next = nextManifest(now.manifest);
        if (!group.every((id) => next.segments.some((s) => s.id === id))) return false;
        next.nextSegment = Math.max(next.nextSegment, draft.nextSegment);
        // Deletions that happened while merging, translated to the merged segment.
        const deleted: number[] = [];
        group.forEach((id, g) => {
          const before = new Set(base.manifest.segments.find((s) => s.id === id)!.deleted);
          for (const ordinal of next.segments.find((s) => s.id === id)!.deleted) {
            const moved = ordinalMaps[g]![ordinal]!;
            if (!before.has(ordinal) && moved >= 0) deleted.push(moved);
          }
        });
        const position = next.segments.findIndex((s) => group.includes(s.id));
        next.segments = next.segments.filter((s) => !group.includes(s.id));
        if (merged) {
          merged.entry.deleted = deleted.sort((a, b) => a - b);
          next.segments.splice(position, 0, merged.entry);
        }
        // Already written above; commit only publishes the manifest that names it.
        await this.commit(blogSlug, now.snapshot, next, merged ? [{ ...merged, written: true }] : [], group);
        return true;
      });
      if (!committed) {
        // A rebuild or drop replaced the segments meanwhile; the merged copy is an orphan.
        if (merged) await this.store.delete(segmentKey(blogSlug, merged.entry));
        return { merges, segments: base.manifest.segments.length };
      }
      merges++;
    }
    const last = await this.base(blogSlug);
    return { merges, segments: last.manifest.segments.length };
  }
}

function latestById(docs: readonly SearchDocument[]): SearchDocument[] {
  const byId = new Map<string, SearchDocument>();
  for (const doc of docs) {
    byId.delete(doc.id);
    byId.set(doc.id, doc);
  }
  return [...byId.values()];
}
