/**
 * Counts views in memory between flushes (docs/analytics.md "Storage"): SQLite is written once
 * per flush, never once per view. Every map is bounded, so hostile hits cannot grow memory.
 */

/** What a counted load is of: a blog's post page, or one of its listing pages (postId null). */
export interface ViewTarget {
  blogId: string;
  postId: string | null;
}

export interface DayCount {
  day: string;
  blogId: string;
  /** null: the blog's own row (every counted load on its host). */
  postId: string | null;
  views: number;
  /** Visitors seen for the first time today (since this process started) in this row. */
  visitors: number;
}

export interface ReferrerCount {
  day: string;
  blogId: string;
  postId: string | null;
  host: string;
  views: number;
}

/** What one flush writes. */
export interface ViewBatch {
  days: DayCount[];
  referrers: ReferrerCount[];
}

/** Rows waiting for the next flush; real targets are published posts, so this only caps a bug. */
const MAX_PENDING_ROWS = 200_000;
/** Referrer rows waiting for the next flush; past it, views still count, hosts are dropped. */
const MAX_PENDING_REFERRERS = 20_000;
/** Today's remembered visitors (blog and post rows); past it a visitor is counted, not remembered. */
const MAX_VISITORS = 1_000_000;

export class ViewCounter {
  private days = new Map<string, DayCount>();
  private referrers = new Map<string, ReferrerCount>();
  private visitorDay = '';
  private seen = new Set<string>();

  constructor(private readonly limits = { rows: MAX_PENDING_ROWS, referrers: MAX_PENDING_REFERRERS, visitors: MAX_VISITORS }) {}

  /** One counted load of `target` on `day` by `visitor` (a day's hash), from `source` if known. */
  record(day: string, target: ViewTarget, visitor: string, source: string | null): void {
    if (day !== this.visitorDay) {
      // A new day: yesterday's visitors cannot be linked to today's, by design.
      this.visitorDay = day;
      this.seen = new Set();
    }
    this.count(day, target.blogId, null, visitor, source);
    if (target.postId !== null) this.count(day, target.blogId, target.postId, visitor, source);
  }

  /** Takes everything counted since the last drain. */
  drain(): ViewBatch {
    const batch = { days: [...this.days.values()], referrers: [...this.referrers.values()] };
    this.days = new Map();
    this.referrers = new Map();
    return batch;
  }

  /** Puts a batch back (its write failed): the next flush tries again. */
  restore(batch: ViewBatch): void {
    for (const row of batch.days) {
      const key = `${row.day}\0${row.blogId}\0${row.postId ?? ''}`;
      const pending = this.days.get(key);
      if (pending) {
        pending.views += row.views;
        pending.visitors += row.visitors;
      } else if (this.days.size < this.limits.rows) this.days.set(key, { ...row });
    }
    for (const row of batch.referrers) {
      const key = `${row.day}\0${row.blogId}\0${row.postId ?? ''}\0${row.host}`;
      const pending = this.referrers.get(key);
      if (pending) pending.views += row.views;
      else if (this.referrers.size < this.limits.referrers) this.referrers.set(key, { ...row });
    }
  }

  /** Sizes of the maps, for tests and /metrics. */
  sizes(): { rows: number; referrers: number; visitors: number } {
    return { rows: this.days.size, referrers: this.referrers.size, visitors: this.seen.size };
  }

  private count(day: string, blogId: string, postId: string | null, visitor: string, source: string | null): void {
    const rowKey = `${day}\0${blogId}\0${postId ?? ''}`;
    let row = this.days.get(rowKey);
    if (!row) {
      if (this.days.size >= this.limits.rows) return;
      row = { day, blogId, postId, views: 0, visitors: 0 };
      this.days.set(rowKey, row);
    }
    row.views += 1;
    const seenKey = `${postId ?? blogId}\0${visitor}`;
    if (!this.seen.has(seenKey)) {
      row.visitors += 1;
      if (this.seen.size < this.limits.visitors) this.seen.add(seenKey);
    }
    if (source === null) return;
    const refKey = `${rowKey}\0${source}`;
    const ref = this.referrers.get(refKey);
    if (ref) ref.views += 1;
    else if (this.referrers.size < this.limits.referrers) this.referrers.set(refKey, { day, blogId, postId, host: source, views: 1 });
  }
}
