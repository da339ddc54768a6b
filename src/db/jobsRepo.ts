import { atomically, type SqlScope, type SqlTransaction } from './sql/sqlClient.js';

/**
 * What a job asks the publisher to do. `post` re-renders one post and what lists it; `post_removed`
 * takes a post off the site; `site` re-renders a whole blog; `site_delete` removes every object;
 * `media_delete` removes the objects of a deleted image (services/mediaRemoval.ts); `discovery`
 * brings a blog's entries in the cross-blog discovery index in line with its opt-in.
 */
/** `site_cards`: the social cards a full render left to draw (publish/pipelines/drawSiteCards.ts). */
export type JobKind = 'post' | 'post_removed' | 'site' | 'site_cards' | 'site_delete' | 'media_delete' | 'discovery';

/** Reasons of whole-site jobs queued after an upgrade: the pages are stale; pages and search indexes are. */
export const RENDERER_CHANGED = 'renderer_changed';
export const SEARCH_TEXT_CHANGED = 'search_text_changed';
/** Reason of the whole-site job of a blog `folio import` wrote: pages and search indexes. */
export const IMPORTED = 'imported';
/**
 * Reason of the whole-site jobs of a changed FOLIO_SERVICE_DOMAIN / FOLIO_PUBLIC_SCHEME: often the
 * first start after a restore into a new store, whose recorded hashes name objects it lacks.
 */
export const URLS_CHANGED = 'urls_changed';

export interface JobPayload {
  postId?: string;
  /** Slug the post had before this change, when it differs (a rename or a removal). */
  previousSlug?: string;
  /** Tags the post had before this change, so tag pages that listed it are re-rendered. */
  previousTags?: string[];
  /** Whether the post was live before this change (an edit in place, not an insertion). */
  wasLive?: boolean;
  /**
   * published_at of a post taken off the site, to find the archive page it leaves; on a live
   * post (wasLive) the date it had before it was given another, which re-renders the blog.
   */
  previousPublishedAt?: string;
  /** Old addresses (old slugs, or alias paths starting with `/`) whose objects must go. */
  removedRedirects?: string[];
  reason?: string;
  /** Hostname whose routing entry must be written or removed. */
  hostname?: string;
  /** `media_delete`: the deleted image's hash and the names of its objects under the blog's `media/`. */
  mediaHash?: string;
  mediaNames?: string[];
}

export interface PublishJob {
  id: number;
  blogId: string;
  blogSlug: string;
  kind: JobKind;
  payload: JobPayload;
  status: 'pending' | 'done' | 'failed';
  attempts: number;
  lastError: string | null;
  runAfter: string;
  createdAt: string;
  updatedAt: string;
}

interface JobRow {
  id: number;
  blog_id: string;
  blog_slug: string;
  kind: JobKind;
  payload: string;
  status: PublishJob['status'];
  attempts: number;
  last_error: string | null;
  run_after: string;
  created_at: string;
  updated_at: string;
}

const toJob = (row: JobRow): PublishJob => ({
  id: row.id,
  blogId: row.blog_id,
  blogSlug: row.blog_slug,
  kind: row.kind,
  payload: JSON.parse(row.payload) as JobPayload,
  status: row.status,
  attempts: row.attempts,
  lastError: row.last_error,
  runAfter: row.run_after,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/**
 * A range of the id (SQLite's rowid), newest jobs only: never a scan of the blog's whole history.
 * `blog_id || ''` keeps SQLite off publish_jobs_by_blog, which it preferred, reading every job the
 * blog ever had (50,000 after an import: over 100 ms of a busy server's event loop).
 */
export const POST_JOBS_SINCE_SQL = `SELECT * FROM publish_jobs WHERE id > ? AND blog_id || '' = ? AND kind IN ('post', 'post_removed') ORDER BY id`;

const MARK_DONE = `UPDATE publish_jobs SET status = 'done', attempts = attempts + 1, last_error = NULL, updated_at = ? WHERE id = ? AND status = 'pending'`;

export class JobsRepo {
  constructor(private readonly sql: SqlScope) {}

  /** The same queries inside a transaction. */
  in(tx: SqlTransaction): JobsRepo {
    return new JobsRepo(tx);
  }

  /** Records a job; call inside the transaction that makes the change it publishes. */
  async insert(job: { blogId: string; blogSlug: string; kind: JobKind; payload: JobPayload; now: string }): Promise<number> {
    const row = await this.sql.get<{ id: number }>(
      `INSERT INTO publish_jobs (blog_id, blog_slug, kind, payload, status, run_after, created_at, updated_at)
       VALUES (?, ?, ?, ?, 'pending', ?, ?, ?) RETURNING id`,
      [job.blogId, job.blogSlug, job.kind, JSON.stringify(job.payload), job.now, job.now, job.now],
    );
    return Number(row!.id);
  }

  async findById(id: number): Promise<PublishJob | null> {
    const row = await this.sql.get<JobRow>('SELECT * FROM publish_jobs WHERE id = ?', [id]);
    return row ? toJob(row) : null;
  }

  async listDue(nowIso: string, limit: number): Promise<PublishJob[]> {
    return (await this.sql.all<JobRow>(`SELECT * FROM publish_jobs WHERE status = 'pending' AND run_after <= ? ORDER BY id LIMIT ?`, [nowIso, limit])).map(
      toJob,
    );
  }

  async markDone(id: number, now: string): Promise<boolean> {
    return (await this.sql.run(MARK_DONE, [now, id])).changes > 0;
  }

  /** Marks a batch's jobs done together: one transaction, so a crash leaves all of them pending or none. */
  async markAllDone(ids: readonly number[], now: string): Promise<void> {
    await atomically(this.sql, async (tx) => {
      for (const id of ids) await tx.run(MARK_DONE, [now, id]);
    });
  }

  /** The blog's pending jobs from job `fromId` on (itself included), oldest first. */
  async pendingFrom(blogId: string, fromId: number, limit: number): Promise<PublishJob[]> {
    // Walks the (blog_id, status) index, whose rows are in id order.
    const rows = await this.sql.all<JobRow>(`SELECT * FROM publish_jobs WHERE blog_id = ? AND status = 'pending' AND id >= ? ORDER BY id LIMIT ?`, [
      blogId,
      fromId,
      limit,
    ]);
    return rows.map(toJob);
  }

  /** How many of the blog's post jobs are pending: changes its pages may not show yet. */
  async countPendingPostJobs(blogId: string): Promise<number> {
    // Walks the (blog_id, status) index, whose rows are in id order.
    const row = await this.sql.get<{ n: number }>(
      `SELECT COUNT(*) AS n FROM publish_jobs WHERE blog_id = ? AND status = 'pending' AND kind IN ('post', 'post_removed')`,
      [blogId],
    );
    return row?.n ?? 0;
  }

  /** Records a failed attempt; the job stays pending until `runAfter`, or becomes failed for good. */
  async markAttemptFailed(id: number, error: string, runAfter: string, now: string, giveUp: boolean): Promise<void> {
    await this.sql.run(
      `UPDATE publish_jobs SET status = ?, attempts = attempts + 1, last_error = ?, run_after = ?, updated_at = ?
        WHERE id = ? AND status = 'pending'`,
      [giveUp ? 'failed' : 'pending', error, runAfter, now, id],
    );
  }

  async listOpenForBlog(blogId: string): Promise<PublishJob[]> {
    return (await this.sql.all<JobRow>(`SELECT * FROM publish_jobs WHERE blog_id = ? AND status IN ('pending', 'failed') ORDER BY id`, [blogId])).map(toJob);
  }

  /** The newest job's id (0 when none). */
  async latestId(): Promise<number> {
    return (await this.sql.get<{ id: number }>('SELECT COALESCE(MAX(id), 0) AS id FROM publish_jobs'))?.id ?? 0;
  }

  /** The blog's post jobs recorded after job `afterId`, oldest first, whatever their status. */
  async postJobsSince(blogId: string, afterId: number): Promise<PublishJob[]> {
    const rows = await this.sql.all<JobRow>(POST_JOBS_SINCE_SQL, [afterId, blogId]);
    return rows.map(toJob);
  }

  async countByStatus(status: PublishJob['status']): Promise<number> {
    return (await this.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM publish_jobs WHERE status = ?', [status]))?.n ?? 0;
  }
}
