/**
 * One limiter's part in the counts every node shares on PostgreSQL (rateWindowSync.ts): what this
 * node counted and has not sent yet, and what the other nodes had counted as of the last sync.
 * The request path only looks up a map here; the database is the syncer's business.
 */

/** Increments of one key in one window, on their way to the database. */
export interface WindowIncrement {
  key: string;
  start: number;
  count: number;
}

/** A key counted within this many syncs (about a minute) has its total read back even when it has nothing to send. */
const REFRESH_ROUNDS = 60;

interface Entry {
  start: number;
  unsent: number;
  /** The sync round (take()) of its last count. */
  countedIn: number;
  /** What this node added to the database's total so far. */
  sent: number;
  /** The database's total at the last sync, less what this node sent. */
  others: number;
}

export class RateWindowShare {
  private readonly entries = new Map<string, Entry>();
  private round = 0;

  constructor(
    /** Names the limiter in the table; every node must use the same. */
    readonly scope: string,
    readonly windowMs: number,
  ) {}

  /** What the other nodes had counted for `key` in the window starting at `start`, as of the last sync. */
  others(key: string, start: number): number {
    const entry = this.entries.get(key);
    return entry?.start === start ? entry.others : 0;
  }

  /** This node counted `count` more for `key` (sent at the next sync). */
  add(key: string, start: number, count: number): void {
    if (count === 0) return;
    let entry = this.entries.get(key);
    if (!entry || entry.start !== start) {
      entry = { start, unsent: 0, countedIn: this.round, sent: 0, others: 0 };
      this.entries.set(key, entry);
    }
    entry.unsent += count;
    entry.countedIn = this.round;
  }

  /**
   * Hands over what is to send, and the keys counted lately with nothing to send, whose totals are
   * read back so that this node learns what the others counted; forgets the windows ended by `now`.
   */
  take(now: number): { increments: WindowIncrement[]; refresh: WindowIncrement[] } {
    const increments: WindowIncrement[] = [];
    const refresh: WindowIncrement[] = [];
    for (const [key, entry] of this.entries) {
      if (entry.start + this.windowMs <= now) {
        this.entries.delete(key);
      } else if (entry.unsent > 0) {
        increments.push({ key, start: entry.start, count: entry.unsent });
        entry.unsent = 0;
      } else if (this.round - entry.countedIn < REFRESH_ROUNDS) {
        refresh.push({ key, start: entry.start, count: 0 });
      }
    }
    this.round += 1;
    return { increments, refresh };
  }

  /** The database took `sent` (or only read, for a count of 0) and answered with the window's `total` across nodes. */
  settled(sent: WindowIncrement, total: number): void {
    const entry = this.entries.get(sent.key);
    if (entry?.start !== sent.start) return;
    entry.sent += sent.count;
    // Never lower: a row another node deleted early (its clock ahead) must not hand back budget.
    entry.others = Math.max(entry.others, total - entry.sent);
  }

  /** The database did not take `sent`: it goes again with the next sync. */
  returned(sent: WindowIncrement): void {
    const entry = this.entries.get(sent.key);
    if (entry?.start === sent.start) entry.unsent += sent.count;
  }
}
