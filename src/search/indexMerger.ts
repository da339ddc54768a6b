/**
 * Merges a blog's index segments by the tiered policy (mergePolicy.ts). The heavy part, joining
 * and encoding the segments, runs outside the blog's write lock, so publishes are not held up by
 * it; deletions made meanwhile are carried over to the merged segment when it is committed.
 */
import { KeyedQueue } from '../lib/keyedQueue.js';
import { SingleFlight } from '../lib/singleFlight.js';
import type { SiteStore } from '../storage/siteStore.js';
import { SEGMENT_OBJECT, type IndexCommitter } from './indexCommit.js';
import { nextManifest, searchPrefix, segmentIdOf, segmentKey, type Manifest } from './manifest.js';
import { planMerge, type MergePolicy } from './mergePolicy.js';
import { mergeInPlace, type MergedSegment } from './segmentMerge.js';
import type { MergeInput } from './segmentData.js';
import type { WriteBases } from './writeBase.js';
import { holdNothing, type HoldBlog } from '../lib/holdBlog.js';

export interface MergeReport {
  /** Merge steps committed (each replaced one group of segments). */
  merges: number;
  segments: number;
}

export interface IndexMergerDeps {
  store: SiteStore;
  commits: IndexCommitter;
  bases: WriteBases;
  policy: MergePolicy;
  /** Run a merge in the background after a write that leaves the index out of shape (default true). */
  autoMerge?: boolean | undefined;
  /** Failures of background merges; the index stays correct, only unmerged. */
  onBackgroundError?: ((err: unknown, blogSlug: string) => void) | undefined;
  /** Joins and encodes the segments of a merge; in place by default. */
  mergeSegments?: ((blogSlug: string, parts: MergeInput[]) => Promise<MergedSegment>) | undefined;
  /**
   * What a background merge runs inside: with several nodes, holding the blog (publish/jobs/
   * blogLeases.ts), so that no other node writes its index meanwhile.
   */
  hold?: HoldBlog | undefined;
}

/** Safety net: a merge pass stops after this many steps even if the policy still asks for more. */
const MAX_MERGE_STEPS = 64;

export class IndexMerger {
  /** Merges of one blog, one at a time (their heavy part runs outside the write lock). */
  private readonly merges = new KeyedQueue();
  /** The background merge of each blog, at most one at a time. */
  private readonly background = new SingleFlight<string, void>();

  constructor(private readonly deps: IndexMergerDeps) {}

  /** Merges until the policy is satisfied. Safe to call at any time; merges of a blog never overlap. */
  merge(blogSlug: string): Promise<MergeReport> {
    return this.merges.run(blogSlug, () => this.mergeNow(blogSlug));
  }

  /** Starts a merge in the background if `manifest`, just committed, needs one and none is running. */
  mergeLater(blogSlug: string, manifest: Manifest): void {
    if (this.deps.autoMerge === false || this.background.has(blogSlug)) return;
    if (!planMerge(manifest, this.deps.policy)) return;
    const onError =
      this.deps.onBackgroundError ?? ((err: unknown, blog: string) => process.emitWarning(`search index merge of ${blog} failed: ${String(err)}`));
    // The failure is handed to onBackgroundError; the index stays correct without the merge.
    const hold = this.deps.hold ?? holdNothing;
    void this.background.load(blogSlug, () =>
      hold(blogSlug, () => this.merge(blogSlug)).then(
        () => undefined,
        (err: unknown) => onError(err, blogSlug),
      ),
    );
  }

  /** Resolves when background merges started so far have finished. */
  idle(): Promise<void> {
    return this.background.idle();
  }

  private async mergeNow(blogSlug: string): Promise<MergeReport> {
    const { commits, store, bases, policy } = this.deps;
    let merges = 0;
    for (let step = 0; step < MAX_MERGE_STEPS; step++) {
      const base = await commits.exclusive(blogSlug, () => commits.base(blogSlug));
      const group = planMerge(base.manifest, policy);
      if (!group) {
        await this.sweep(blogSlug);
        return { merges, segments: base.manifest.segments.length };
      }
      // Only the segments merged are read whole, not every segment of the blog.
      const views = await bases.views(blogSlug, base, group);
      if (!views) continue; // one went meanwhile (another process merged): plan again
      // The expensive part, outside the lock: publishes continue meanwhile.
      const joined = await (this.deps.mergeSegments ?? mergeInPlace)(
        blogSlug,
        views.map((v) => v.segment.mergePart(v.deleted)),
      );
      const { data, ordinalMaps } = joined;
      const draft = nextManifest(base.manifest);
      const merged = data.docs.ids.length > 0 ? await commits.prepare(draft, data, joined.encoded) : null;
      if (merged) await store.put(segmentKey(blogSlug, merged.entry), merged.body, SEGMENT_OBJECT);

      const committed = await commits.exclusive(blogSlug, async () => {
        const now = await commits.base(blogSlug);
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
        await commits.commit(blogSlug, now.snapshot, next, merged ? [{ ...merged, written: true }] : [], group);
        return true;
      });
      if (!committed) {
        // A rebuild or drop replaced the segments meanwhile; the merged copy is an orphan.
        if (merged) await store.delete(segmentKey(blogSlug, merged.entry));
        return { merges, segments: base.manifest.segments.length };
      }
      merges++;
    }
    const last = await commits.base(blogSlug);
    return { merges, segments: last.manifest.segments.length };
  }

  /**
   * Deletes segment objects the manifest does not name: leftovers of a write that failed after
   * storing its segment. Under the lock, so no write is between its segment and its manifest.
   */
  private async sweep(blogSlug: string): Promise<void> {
    const { commits, store } = this.deps;
    await commits.exclusive(blogSlug, async () => {
      const named = new Set((await commits.base(blogSlug)).manifest.segments.map((s) => s.id));
      const orphans = (await store.list(searchPrefix(blogSlug))).filter((key) => {
        const id = segmentIdOf(blogSlug, key);
        return id !== null && !named.has(id);
      });
      if (orphans.length > 0) await store.deleteMany(orphans);
    });
  }
}
