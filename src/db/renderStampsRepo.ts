import { atomically, type SqlScope, type SqlTransaction } from './sql/sqlClient.js';

/** What a process other than the server rendered one blog with (publish/renderStamps.ts). */
export interface RenderStamp {
  /** The render fingerprint the blog's every page was rendered with, when a full render did it. */
  fingerprint?: string;
  /** The SEARCH_TEXT_VERSION its search indexes were rebuilt with. */
  searchTextVersion?: string;
  /** The newest publish job when the work ended: a later job of the blog was not this process's. */
  afterJob: number;
}

const KEY = 'rendered_outside_server';

/**
 * The render stamps of `folio site rebuild` and `folio search reindex`, one settings row (a JSON
 * object by blog id) read once at the server's start, and the probe of the blog's later jobs.
 */
export class RenderStampsRepo {
  constructor(private readonly sql: SqlScope) {}

  /** The same queries inside a transaction. */
  in(tx: SqlTransaction): RenderStampsRepo {
    return new RenderStampsRepo(tx);
  }

  async all(): Promise<Record<string, RenderStamp>> {
    const row = await this.sql.get<{ value: string }>('SELECT value FROM settings WHERE key = ?', [KEY]);
    if (!row) return {};
    try {
      const parsed: unknown = JSON.parse(row.value);
      return parsed && typeof parsed === 'object' ? (parsed as Record<string, RenderStamp>) : {};
    } catch {
      // A damaged row only costs the re-render it would have spared.
      return {};
    }
  }

  /** Merges `stamp` into the blog's, in one transaction with the read (two CLI commands may run at once). */
  async record(blogId: string, stamp: RenderStamp, now: string): Promise<void> {
    await atomically(this.sql, async (tx) => {
      const stamps = await this.in(tx).all();
      stamps[blogId] = { ...stamps[blogId], ...stamp };
      await tx.run(
        'INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at',
        [KEY, JSON.stringify(stamps), now],
      );
    });
  }

  async clear(): Promise<void> {
    await this.sql.run('DELETE FROM settings WHERE key = ?', [KEY]);
  }

  /** Whether a page-changing job of the blog was recorded after job `afterId`. */
  async hasJobAfter(blogId: string, afterId: number): Promise<boolean> {
    // A range of the id (SQLite's rowid) from the stamp on: never a scan of the blog's whole history.
    const row = await this.sql.get<{ one: number }>(
      `SELECT 1 AS one FROM publish_jobs WHERE id > ? AND blog_id = ? AND kind IN ('post', 'post_removed', 'site') LIMIT 1`,
      [afterId, blogId],
    );
    return row !== undefined;
  }
}
