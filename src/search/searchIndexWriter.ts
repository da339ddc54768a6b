/**
 * Keeps a blog's stored index in step with its published posts (used by the publisher).
 *
 * - `upsert` rewrites only the small head segment and the manifest; an older version of the
 *   post elsewhere gets a tombstone. Its cost depends on the head (≤ headMaxDocs), not the blog.
 * - `remove` only adds tombstones to the manifest.
 * - `merge` applies the tiered policy (indexMerger.ts), outside the blog's write lock.
 * - `rebuild` indexes everything afresh on worker threads; `drop` deletes every index object
 *   (indexRebuild.ts).
 *
 * Every write of a blog goes through its lock and commit (indexCommit.ts).
 */
import type { SiteStore } from '../storage/siteStore.js';
import { IndexCommitter } from './indexCommit.js';
import { IndexMerger, type IndexMergerDeps, type MergeReport } from './indexMerger.js';
import { dropIndex, rebuildIndex, type IndexRebuildDeps } from './indexRebuild.js';
import { LoadedSegment } from './loadedSegment.js';
import { addTombstone, nextManifest, setTombstones } from './manifest.js';
import { DEFAULT_MERGE_POLICY, type MergePolicy } from './mergePolicy.js';
import type { DocumentRuns, ParallelBuildOptions } from './parallelBuild.js';
import { SearchIndexCache } from './searchIndexCache.js';
import { encodeSegment } from './segmentCodec.js';
import type { MergedSegment } from './segmentMerge.js';
import { buildSegmentData, concatSegments, type MergeInput, type SegmentData } from './segmentData.js';
import type { SearchDocument } from './searchTypes.js';
import { WriteBases } from './writeBase.js';

export type { MergeReport };

export interface SearchIndexWriterOptions extends Partial<MergePolicy>, ParallelBuildOptions {
  /** Shared with the searcher so its next query sees this writer's changes at once. */
  cache?: SearchIndexCache;
  /** Run `merge` in the background after a write that leaves the index out of shape (default true). */
  autoMerge?: boolean;
  /** Failures of background merges; the index stays correct, only unmerged. */
  onBackgroundError?: (err: unknown, blogSlug: string) => void;
  /**
   * Indexes the documents of an upsert. The default does it in place; the server hands large
   * documents to worker threads, so indexing a long post does not hold the event loop.
   */
  buildSegment?: (blogSlug: string, docs: SearchDocument[]) => Promise<SegmentData>;
  /**
   * Joins and encodes the segments of a merge. The default does it in place; the server uses
   * worker threads, since both scale with the segments merged.
   */
  mergeSegments?: (blogSlug: string, parts: MergeInput[]) => Promise<MergedSegment>;
  /** What background merges run inside (IndexMergerDeps.hold). */
  hold?: IndexMergerDeps['hold'];
}

export class SearchIndexWriter {
  private readonly policy: MergePolicy;
  private readonly commits: IndexCommitter;
  private readonly merger: IndexMerger;
  private readonly rebuilds: IndexRebuildDeps;
  private readonly bases: WriteBases;

  constructor(
    store: SiteStore,
    private readonly options: SearchIndexWriterOptions = {},
  ) {
    const cache = options.cache ?? new SearchIndexCache(store);
    const bases = new WriteBases(store, cache);
    this.bases = bases;
    this.policy = {
      headMaxDocs: options.headMaxDocs ?? DEFAULT_MERGE_POLICY.headMaxDocs,
      mergeFactor: options.mergeFactor ?? DEFAULT_MERGE_POLICY.mergeFactor,
      maxDeletedRatio: options.maxDeletedRatio ?? DEFAULT_MERGE_POLICY.maxDeletedRatio,
    };
    this.commits = new IndexCommitter({ store, cache, bases });
    this.merger = new IndexMerger({
      store,
      commits: this.commits,
      bases,
      policy: this.policy,
      autoMerge: options.autoMerge,
      onBackgroundError: options.onBackgroundError,
      mergeSegments: options.mergeSegments,
      hold: options.hold,
    });
    this.rebuilds = { store, cache, commits: this.commits, policy: this.policy, parallel: options };
  }

  /**
   * Reads what the blog's next upsert reads: the head segment and the post ids of the others,
   * unless the whole index is in memory (the warm-up after a restart, for blogs that were
   * publishing). Its queries load the rest when they come.
   */
  async warm(blogSlug: string): Promise<void> {
    await this.commits.exclusive(blogSlug, () => this.commits.base(blogSlug));
  }

  /** Lets go of what `warm` and earlier writes opened (a server at rest): segment ids, head segments. */
  release(): void {
    this.bases.release();
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
    const { commits } = this;
    const manifest = await commits.exclusive(blogSlug, async () => {
      const base = await commits.base(blogSlug);
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
      const head = await commits.prepare(next, headData);
      next.head = head.entry.id;
      await commits.commit(blogSlug, base.snapshot, next, [head], replaced);
      return next;
    });
    this.merger.mergeLater(blogSlug, manifest);
  }

  /** Removes posts (unpublished or deleted); unknown ids are ignored. */
  async remove(blogSlug: string, postIds: readonly string[]): Promise<void> {
    if (postIds.length === 0) return;
    const { commits } = this;
    const manifest = await commits.exclusive(blogSlug, async () => {
      const base = await commits.base(blogSlug);
      const next = nextManifest(base.manifest);
      let changed = false;
      for (const id of new Set(postIds)) {
        const at = base.locate(id);
        if (!at) continue;
        addTombstone(next, at.segmentId, at.ordinal);
        changed = true;
      }
      if (!changed) return null;
      await commits.commit(blogSlug, base.snapshot, next, [], []);
      return next;
    });
    if (manifest) this.merger.mergeLater(blogSlug, manifest);
  }

  /** Merges until the policy is satisfied. Safe to call at any time; merges of a blog never overlap. */
  merge(blogSlug: string): Promise<MergeReport> {
    return this.merger.merge(blogSlug);
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
  rebuildFrom(blogSlug: string, source: { count: number; read: DocumentRuns['read'] }): Promise<SegmentData[]> {
    return rebuildIndex(this.rebuilds, blogSlug, source);
  }

  /** Deletes every index object of the blog. */
  drop(blogSlug: string): Promise<void> {
    return dropIndex(this.rebuilds, blogSlug);
  }

  /** Resolves when background merges started so far have finished (tests, shutdown). */
  idle(): Promise<void> {
    return this.merger.idle();
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
