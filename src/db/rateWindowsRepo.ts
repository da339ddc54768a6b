import type { SqlClient } from './sql/sqlClient.js';

/** One window's count of one limiter key (migration 026, PostgreSQL only); times in ms since the epoch. */
export interface RateWindowCount {
  scope: string;
  /** A keyed hash (rateWindowSync.ts), never the account, email or address itself. */
  key: string;
  windowStart: number;
  windowEnd: number;
  count: number;
}

/** Rows one add() or totals() takes: at most five parameters each, well under any driver's limit. */
export const MAX_ROWS_PER_ADD = 200;

/** The `settings` key of the hash key every node of one database shares. */
const HASH_KEY_SETTING = 'rate_windows.hash_key';

const id = (scope: string, key: string, windowStart: number) => `${scope}\n${key}\n${windowStart}`;

/** `rate_windows`: the requests every node counted, added up by the database. */
export class RateWindowsRepo {
  constructor(private readonly sql: SqlClient) {}

  /** Adds each row's count to its window's total in one statement; returns the totals in the rows' order. */
  async add(rows: readonly RateWindowCount[]): Promise<number[]> {
    if (rows.length === 0) return [];
    if (rows.length > MAX_ROWS_PER_ADD) throw new Error(`RateWindowsRepo.add takes at most ${MAX_ROWS_PER_ADD} rows, not ${rows.length}`);
    // One lock order on every node: two nodes upserting the same rows in different orders could deadlock.
    const sorted = [...rows].sort((a, b) => compare(id(a.scope, a.key, a.windowStart), id(b.scope, b.key, b.windowStart)));
    const returned = await this.sql.all<{ scope: string; key: string; window_start: number; count: number }>(
      `INSERT INTO rate_windows (scope, key, window_start, window_end, count) VALUES ${sorted.map(() => '(?, ?, ?, ?, ?)').join(', ')}
       ON CONFLICT (scope, key, window_start) DO UPDATE SET count = rate_windows.count + excluded.count
       RETURNING scope, key, window_start, count`,
      sorted.flatMap((row) => [row.scope, row.key, row.windowStart, row.windowEnd, row.count]),
    );
    const totals = new Map(returned.map((row) => [id(row.scope, row.key, Number(row.window_start)), Number(row.count)]));
    return rows.map((row) => totals.get(id(row.scope, row.key, row.windowStart)) ?? row.count);
  }

  /** The totals of the rows' windows, in the rows' order (undefined: nothing counted there). */
  async totals(rows: readonly Omit<RateWindowCount, 'windowEnd' | 'count'>[]): Promise<(number | undefined)[]> {
    if (rows.length === 0) return [];
    if (rows.length > MAX_ROWS_PER_ADD) throw new Error(`RateWindowsRepo.totals takes at most ${MAX_ROWS_PER_ADD} rows, not ${rows.length}`);
    const found = await this.sql.all<{ scope: string; key: string; window_start: number; count: number }>(
      `SELECT scope, key, window_start, count FROM rate_windows WHERE (scope, key, window_start) IN (${rows.map(() => '(?, ?, ?)').join(', ')})`,
      rows.flatMap((row) => [row.scope, row.key, row.windowStart]),
    );
    const totals = new Map(found.map((row) => [id(row.scope, row.key, Number(row.window_start)), Number(row.count)]));
    return rows.map((row) => totals.get(id(row.scope, row.key, row.windowStart)));
  }

  /** Deletes the windows that ended by `now`: nothing of a window outlives it. */
  async deleteEnded(now: number): Promise<number> {
    return (await this.sql.run('DELETE FROM rate_windows WHERE window_end <= ?', [now])).changes;
  }

  /** The key all nodes hash with: `fresh` becomes it unless a node recorded one first. */
  async hashKey(fresh: string, now: string): Promise<string> {
    await this.sql.run('INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO NOTHING', [HASH_KEY_SETTING, fresh, now]);
    const row = await this.sql.get<{ value: string }>('SELECT value FROM settings WHERE key = ?', [HASH_KEY_SETTING]);
    if (!row) throw new Error(`settings has no ${HASH_KEY_SETTING} right after it was recorded`);
    return row.value;
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
