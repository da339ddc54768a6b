/**
 * Joins the runs of a full rebuild (parallelBuild.ts) into their groups' segments while the
 * rest are still being built: every PARTS_PER_JOIN consecutive runs of a group become one part,
 * and a group's parts are joined into its segment as soon as a run of the next group comes (a
 * group's runs are consecutive), letting go of them. Held until the end, a big blog's run
 * results were most of a reindex's memory (each run repeats the terms it shares with the
 * others: about 350 MB at 50,000 posts against 120 MB once joined), and joining every group at
 * the end held all the parts beside all the segments.
 */
import { buildSegmentData, concatSegmentsCooperatively, type SegmentData } from './segmentData.js';

/** Runs joined at a time: few enough to keep, enough that the final join of a group takes few parts. */
const PARTS_PER_JOIN = 8;

export class RunJoiner {
  /** Runs that arrived ahead of an earlier one, by index: they are taken in order. */
  private readonly early = new Map<number, SegmentData>();
  private nextRun = 0;
  /** Groups before this one are joined into their segments (or queued to be). */
  private completed = 0;
  /** Per group: runs taken but not joined yet, and the joined parts, in order. */
  private readonly fresh: SegmentData[][];
  private readonly joined: SegmentData[][];
  /** The joins, one after the other (each in slices of the event loop). */
  private joins: Promise<void> = Promise.resolve();

  /** `runGroups[i]` is the group of run i; runs of a group are consecutive. */
  constructor(
    private readonly runGroups: readonly number[],
    groupCount: number,
    private readonly partsPerJoin = PARTS_PER_JOIN,
  ) {
    this.fresh = Array.from({ length: groupCount }, () => []);
    this.joined = Array.from({ length: groupCount }, () => []);
  }

  /** Run `index` is built (in any order). */
  add(index: number, data: SegmentData): void {
    this.early.set(index, data);
    for (let next = this.early.get(this.nextRun); next; next = this.early.get(this.nextRun)) {
      this.early.delete(this.nextRun);
      const group = this.runGroups[this.nextRun++]!;
      // Every run of the groups before this one is in: they are complete.
      for (; this.completed < group; this.completed++) this.complete(this.completed);
      const fresh = this.fresh[group]!;
      fresh.push(next);
      if (fresh.length >= this.partsPerJoin) this.join(group);
    }
  }

  /** One segment per group, in order, once every run was added. */
  async finish(): Promise<SegmentData[]> {
    for (; this.completed < this.fresh.length; this.completed++) this.complete(this.completed);
    await this.joins;
    return this.joined.map((parts) => parts[0] ?? buildSegmentData([]));
  }

  private join(group: number): void {
    const parts = this.fresh[group]!;
    this.fresh[group] = [];
    this.joins = this.joins.then(async () => {
      this.joined[group]!.push(await joinAll(parts));
    });
    // Awaited by finish; a failure meanwhile must not count as unhandled.
    this.joins.catch(() => undefined);
  }

  /** The group's last runs joined, then its parts into its segment; the parts are let go. */
  private complete(group: number): void {
    if (this.fresh[group]!.length > 0) this.join(group);
    this.joins = this.joins.then(async () => {
      const parts = this.joined[group]!;
      this.joined[group] = [];
      this.joined[group]!.push(await joinAll(parts));
    });
    this.joins.catch(() => undefined);
  }
}

async function joinAll(parts: readonly SegmentData[]): Promise<SegmentData> {
  if (parts.length === 0) return buildSegmentData([]);
  if (parts.length === 1) return parts[0]!;
  return (await concatSegmentsCooperatively(parts.map((data) => ({ data, drop: null })))).data;
}
