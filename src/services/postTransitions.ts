import type { BlogWithDomain } from '../domain/blog.js';
import type { Post } from '../domain/post.js';
import type { Account } from '../db/accountsRepo.js';
import type { Logger } from '../lib/logger.js';
import { isoNow } from '../lib/clock.js';
import { BadRequestError, ConflictError, ForbiddenError } from '../domain/errors.js';
import { findPostOrThrow, postTx, recordPostJob, recordRemovalJob, type PostDeps } from './postDeps.js';
import { minimumPlan, planIncludes } from '../domain/plans.js';
import type { BlogsRepo } from '../db/blogsRepo.js';
import { commitThenPublish } from './commitThenPublish.js';

/** The scheduler's lock on PostgreSQL: transaction-scoped, so it also holds behind a connection pooler. */
const SCHEDULER_LOCK = 0x466f6c696f02;

/** The post state machine: publish, schedule, unpublish, and due schedules. */
export class PostTransitions {
  constructor(
    private readonly deps: PostDeps,
    private readonly logger: Logger,
  ) {}

  /**
   * draft/scheduled → published; published → published again: first date kept, and nothing
   * rendered when the blog has no unfinished job (its pages are what the database says already).
   */
  async publish(blog: BlogWithDomain, slug: string): Promise<Post> {
    const current = await findPostOrThrow(this.deps, blog, slug);
    if (current.status === 'published' && (await this.deps.jobs.listOpenForBlog(blog.id)).length === 0) return current;
    return commitThenPublish(this.deps, async (tx, record) => {
      const { posts, revisions, jobs, events } = postTx(this.deps, tx);
      const before = await findPostOrThrow({ posts }, blog, slug);
      const now = isoNow(this.deps.clock);
      const next: Post = before.status === 'published' ? before : { ...before, status: 'published', publishedAt: now, scheduledAt: null, updatedAt: now };
      if (next !== before) {
        await posts.update(next);
        await revisions.sealNewest(next.id);
        await events.post(blog, 'post.published', next, now);
      }
      record(await recordPostJob({ jobs }, blog, next, before, now));
      return next;
    });
  }

  async schedule(account: Account, blog: BlogWithDomain, slug: string, scheduledAt: Date): Promise<Post> {
    if (!planIncludes(account.plan, 'schedule')) {
      throw new ForbiddenError(`scheduling needs the ${minimumPlan('schedule')} plan or higher`, { requiredPlan: minimumPlan('schedule') });
    }
    // Nothing to render: a scheduled post is not on the site until publishDue publishes it.
    return this.deps.sql.transaction(async (tx) => {
      const { posts, events } = postTx(this.deps, tx);
      const before = await findPostOrThrow({ posts }, blog, slug);
      if (before.status === 'published') {
        throw new ConflictError('a published post cannot be scheduled; unpublish it first');
      }
      const now = this.deps.clock.now();
      if (scheduledAt.getTime() <= now.getTime()) {
        throw new BadRequestError('scheduled_at must be in the future', { details: [{ field: 'scheduled_at', message: 'must be in the future' }] });
      }
      const next: Post = { ...before, status: 'scheduled', scheduledAt: scheduledAt.toISOString(), updatedAt: now.toISOString() };
      await posts.update(next);
      await events.post(blog, 'post.scheduled', next, next.updatedAt);
      return next;
    });
  }

  /** published/scheduled → draft: the public page and its search entry disappear. */
  async unpublish(blog: BlogWithDomain, slug: string): Promise<Post> {
    return commitThenPublish(this.deps, async (tx, record) => {
      const { posts, jobs, events } = postTx(this.deps, tx);
      const before = await findPostOrThrow({ posts }, blog, slug);
      if (before.status === 'draft') throw new ConflictError('the post is already a draft');
      const now = isoNow(this.deps.clock);
      const next: Post = { ...before, status: 'draft', publishedAt: null, scheduledAt: null, updatedAt: now };
      await posts.update(next);
      await events.post(blog, 'post.unpublished', next, now);
      if (before.status === 'published') record(await recordRemovalJob({ jobs }, blog, before, now, []));
      return next;
    });
  }

  /**
   * Publishes every scheduled post whose time has come, including any that fell due while the
   * server was down. The scheduler tick and start-up both call this; returns how many moved.
   * Batches commit one by one and every job runs after the last, so this one does not use
   * commitThenPublish.
   */
  async publishDue(blogs: Pick<BlogsRepo, 'in'>): Promise<number> {
    const jobIds: number[] = [];
    let moved = 0;
    for (;;) {
      const now = this.deps.clock.now().toISOString();
      const due = await this.deps.posts.listDue(now, 100);
      if (due.length === 0) break;
      // The batch's job ids, one per post moved: returned, as the function may run more than once.
      const batch = await this.deps.sql.transaction(async (tx) => {
        // Several nodes tick every second: one publishes the due posts, the others find them
        // taken and stop (each post is still re-read below, so none is published twice).
        if (tx.dialect === 'postgres' && !(await tx.get<{ taken: boolean }>('SELECT pg_try_advisory_xact_lock(?) AS taken', [SCHEDULER_LOCK]))?.taken) {
          return null;
        }
        const { posts, revisions, jobs, events } = postTx(this.deps, tx);
        const blogsTx = blogs.in(tx);
        const ids: number[] = [];
        for (const candidate of due) {
          // Re-read inside the transaction: an API call may have changed it meanwhile.
          const post = await posts.findById(candidate.id);
          if (post?.status !== 'scheduled' || !post.scheduledAt || post.scheduledAt > now) continue;
          const blog = await blogsTx.findById(post.blogId);
          if (!blog) continue;
          // The post goes out dated as intended, even when published late after downtime.
          const next: Post = { ...post, status: 'published', publishedAt: post.scheduledAt, scheduledAt: null, updatedAt: now };
          await posts.update(next);
          await revisions.sealNewest(next.id);
          await events.post(blog, 'post.published', next, now);
          ids.push(await recordPostJob({ jobs }, blog, next, post, now));
        }
        return ids;
      });
      if (batch === null) break;
      jobIds.push(...batch);
      moved += batch.length;
      if (due.length < 100 || batch.length === 0) break;
    }
    if (moved > 0) this.logger.info({ published: moved }, 'published scheduled posts');
    await this.deps.runner.runNow(jobIds);
    return moved;
  }
}
