/**
 * The `site_cards` job: the social cards a full render left to draw (a big blog's first
 * rebuild, stages/fullSite.ts INLINE_CARDS). Each job draws a batch, newest posts first, writes
 * and purges them (a crawler that asked for one before got a 404 the edge may keep), then
 * records the next job when cards are still missing. A batch rather than the whole blog, so
 * the blog's post jobs, which run in id order behind it, wait seconds and not minutes.
 */
import type { AccountsRepo } from '../../db/accountsRepo.js';
import type { BlogsRepo } from '../../db/blogsRepo.js';
import type { PublishJob } from '../../db/jobsRepo.js';
import type { BlogWithDomain } from '../../domain/blog.js';
import type { CdnSync } from '../stages/cdnSync.js';
import type { FullSite } from '../stages/fullSite.js';
import { planOf } from '../stages/loadSite.js';

/** Cards per job: a few seconds of one worker, on a loaded VM too. */
export const CARDS_PER_JOB = 24;

export interface SiteCardsDeps {
  blogs: Pick<BlogsRepo, 'findById'>;
  accounts: Pick<AccountsRepo, 'findById'>;
  fullSite: Pick<FullSite, 'drawMissingCards'>;
  purge: CdnSync;
  /** Records the next `site_cards` job of the blog (none when one is pending besides `running`). */
  queueCards: (blog: BlogWithDomain, running?: number) => Promise<void>;
}

export class SiteCards {
  constructor(private readonly deps: SiteCardsDeps) {}

  async run(job: PublishJob): Promise<void> {
    const { blogs, accounts, fullSite, purge } = this.deps;
    const blog = await blogs.findById(job.blogId);
    if (!blog) return;
    // draw, write
    const { changedKeys, left } = await fullSite.drawMissingCards(blog, await planOf(accounts, blog), CARDS_PER_JOB);
    // purge
    await purge.changed(blog, { attempt: job.attempts, changedKeys, allKeys: changedKeys });
    if (left > 0) await this.deps.queueCards(blog, job.id);
  }
}
