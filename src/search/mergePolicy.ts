/**
 * Tiered merging keeps the number of segments logarithmic in the blog's size. A segment's tier
 * is floor(log_F(liveDocs / headMaxDocs)); F segments of one tier merge into one of the next.
 * A blog of N posts therefore holds at most (F - 1) segments per tier plus the head:
 * 13 segments for 10,000 posts with the defaults (head 128, F = 4). A segment with many
 * deleted documents is rewritten on its own so tombstones do not pile up in the manifest.
 */
import type { Manifest, SegmentEntry } from './manifest.js';

export interface MergePolicy {
  /** The head is sealed (and a new one started) once it holds this many documents. */
  headMaxDocs: number;
  /** Segments per tier that trigger a merge (F). */
  mergeFactor: number;
  /** A sealed segment with a larger deleted share is purged by the next merge. */
  maxDeletedRatio: number;
}

export const DEFAULT_MERGE_POLICY: MergePolicy = { headMaxDocs: 128, mergeFactor: 4, maxDeletedRatio: 0.25 };

function liveDocs(s: SegmentEntry): number {
  return s.docs - s.deleted.length;
}

export function tierOf(live: number, policy: MergePolicy): number {
  if (live <= policy.headMaxDocs) return 0;
  return Math.floor(Math.log(live / policy.headMaxDocs) / Math.log(policy.mergeFactor) + 1e-9);
}

/** The next group of segment ids to merge into one, or null when the index is in shape. */
export function planMerge(manifest: Manifest, policy: MergePolicy): string[] | null {
  const sealed = manifest.segments.filter((s) => s.id !== manifest.head);

  const purge = sealed
    .filter((s) => s.deleted.length > 0 && s.deleted.length / s.docs > policy.maxDeletedRatio)
    .sort((a, b) => b.deleted.length - a.deleted.length)[0];
  if (purge) return [purge.id];

  const tiers = new Map<number, SegmentEntry[]>();
  for (const s of sealed) {
    const tier = tierOf(liveDocs(s), policy);
    tiers.set(tier, [...(tiers.get(tier) ?? []), s]);
  }
  for (const tier of [...tiers.keys()].sort((a, b) => a - b)) {
    const members = tiers.get(tier)!;
    if (members.length < policy.mergeFactor) continue;
    return members
      .sort((a, b) => liveDocs(a) - liveDocs(b))
      .slice(0, policy.mergeFactor)
      .map((s) => s.id);
  }
  return null;
}

/**
 * Segment sizes for a full rebuild of `total` posts, largest first, already in the shape the
 * policy keeps (the base-F digits of total / headMaxDocs), so no merge follows a rebuild.
 * Whatever is left below headMaxDocs becomes the head.
 */
export function rebuildLayout(total: number, policy: MergePolicy): { sealed: number[]; head: number } {
  const units = Math.floor(total / policy.headMaxDocs);
  const sealed: number[] = [];
  let size = policy.headMaxDocs;
  let remaining = units;
  const digits: number[] = [];
  while (remaining > 0) {
    digits.push(remaining % policy.mergeFactor);
    remaining = Math.floor(remaining / policy.mergeFactor);
  }
  const sizes = digits.map((digit) => {
    const group = Array.from({ length: digit }, () => size);
    size *= policy.mergeFactor;
    return group;
  });
  for (let i = sizes.length - 1; i >= 0; i--) sealed.push(...sizes[i]!);
  return { sealed, head: total - units * policy.headMaxDocs };
}
