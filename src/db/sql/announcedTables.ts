/**
 * The tables whose changes every node hears of on PostgreSQL (their `*_notify` triggers,
 * migrations/postgres/025_several_nodes.sql): what the in-memory lookups of keys and blogs read.
 * A node's own write to one of them must empty its caches at once (PostgresChanges); a write to
 * any other table (rate windows each second, jobs, analytics) must not, or the caches would hold
 * nothing for long on a busy node. Rows of these tables change only by statements that name one
 * of them: the foreign keys that cascade into them start from them too.
 */
export const ANNOUNCED_TABLES = ['accounts', 'api_keys', 'blogs', 'domains'] as const;

const NAMED = new RegExp(`\\b(${ANNOUNCED_TABLES.join('|')})\\b`, 'i');
const named = new Map<string, boolean>();

/**
 * Whether a statement names one of those tables, remembered per text as the seam's texts are few.
 * A statement that only reads one in a subquery counts too: that costs a cache miss, never a stale answer.
 */
export function namesAnnouncedTable(sql: string): boolean {
  let found = named.get(sql);
  if (found === undefined) {
    found = NAMED.test(sql);
    if (named.size < 2_000) named.set(sql, found);
  }
  return found;
}
