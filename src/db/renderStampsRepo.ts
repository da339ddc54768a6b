import type { Db } from './database.js';

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
  private readonly getStmt;
  private readonly setStmt;
  private readonly clearStmt;
  private readonly laterJobStmt;

  constructor(private readonly db: Db) {
    this.getStmt = db.prepare<[string], { value: string }>('SELECT value FROM settings WHERE key = ?');
    this.setStmt = db.prepare(
      'INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at',
    );
    this.clearStmt = db.prepare('DELETE FROM settings WHERE key = ?');
    // A range of the rowid from the stamp on: never a scan of the blog's whole history.
    this.laterJobStmt = db.prepare<[number, string], { one: number }>(
      `SELECT 1 AS one FROM publish_jobs WHERE id > ? AND blog_id = ? AND kind IN ('post', 'post_removed', 'site') LIMIT 1`,
    );
  }

  all(): Record<string, RenderStamp> {
    const row = this.getStmt.get(KEY);
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
  record(blogId: string, stamp: RenderStamp, now: string): void {
    this.db
      .transaction(() => {
        const stamps = this.all();
        stamps[blogId] = { ...stamps[blogId], ...stamp };
        this.setStmt.run(KEY, JSON.stringify(stamps), now);
      })
      .immediate();
  }

  clear(): void {
    this.clearStmt.run(KEY);
  }

  /** Whether a page-changing job of the blog was recorded after job `afterId`. */
  hasJobAfter(blogId: string, afterId: number): boolean {
    return this.laterJobStmt.get(afterId, blogId) !== undefined;
  }
}
