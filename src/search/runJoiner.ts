/**
 * Joins the runs of a full rebuild (parallelBuild.ts) into their groups' segments while the
 * rest are still being built: every PARTS_PER_JOIN consecutive runs of a group become one part,
 * and each group's parts are joined at the end. Held until the end, a big blog's run results
 * were most of a reindex's memory (each run repeats the terms it shares with the others: about
 * 350 MB at 50,000 posts against 120 MB once joined).
 */
import { buildSegmentData, concatSegmentsCooperatively, type SegmentData } from './segmentData.js';

/** Runs joined at a time: few enough to keep, enough that the final join of a group takes few parts. */
const PARTS_PER_JOIN = 8;

export class RunJoiner {
  /** Runs that arrived ahead of an earlier one, by index: they are taken in order. */
  private readonly early = new Map<number, SegmentData>();
  private nextRun = 0;
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
      const fresh = this.fresh[group]!;
      fresh.push(next);
      if (fresh.length >= this.partsPerJoin) this.join(group);
    }
  }

  /** One segment per group, in order, once every run was added. */
  async finish(): Promise<SegmentData[]> {
    for (const group of this.fresh.keys()) if (this.fresh[group]!.length > 0) this.join(group);
    await this.joins;
    const segments: SegmentData[] = [];
    for (const parts of this.joined) segments.push(await joinAll(parts));
    return segments;
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
}

async function joinAll(parts: readonly SegmentData[]): Promise<SegmentData> {
  if (parts.length === 0) return buildSegmentData([]);
  if (parts.length === 1) return parts[0]!;
  return (await concatSegmentsCooperatively(parts.map((data) => ({ data, drop: null })))).data;
}
