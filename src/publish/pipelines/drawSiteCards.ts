/**
 * The `site_cards` job: the social cards a full render left to draw (a big blog's first
 * rebuild, stages/fullSite.ts INLINE_CARDS). Each job draws a batch, newest posts first, writes
 * and purges them (a crawler that asked for one before got a 404 the edge may keep), then
 * records the next job when cards are still missing. A batch rather than the whole blog, so
 * the blog's post jobs, which run in id order behind it, wait seconds and not minutes.
 *
 * Which cards are missing takes a listing of the store and a pass over the blog: at 30,000
 * posts, more than the batch's drawing. So the first job of a run keeps that list (the blog's
 * backlog) and the next jobs take their batches from it, each card checked against the database
 * first; once it is used up, one more look finds any card missed meanwhile.
 */
import type { AccountsRepo } from '../../db/accountsRepo.js';
import type { BlogsRepo } from '../../db/blogsRepo.js';
import type { PublishJob } from '../../db/jobsRepo.js';
import type { BlogWithDomain } from '../../domain/blog.js';
import type { CardDrawing } from '../cards/cardSpec.js';
import type { CdnSync } from '../stages/cdnSync.js';
import type { FullSite } from '../stages/fullSite.js';
import { planOf } from '../stages/loadSite.js';
import type { WantedCards } from '../stages/wantedCards.js';

/** Cards per job: a few seconds of one worker, on a loaded VM too. */
export const CARDS_PER_JOB = 24;
/** Backlog entries a job looks at, at most: one whose cards all went stale ends its turn early. */
const LOOKS_PER_JOB = 2000;

export interface SiteCardsDeps {
  blogs: Pick<BlogsRepo, 'findById'>;
  accounts: Pick<AccountsRepo, 'findById'>;
  /** The cards the blog's pages name as the database stands. */
  wanted: Pick<WantedCards, 'of'>;
  fullSite: Pick<FullSite, 'missingCards' | 'drawSome'>;
  purge: CdnSync;
  /** Records the next `site_cards` job of the blog (none when one is pending besides `running`). */
  queueCards: (blog: BlogWithDomain, running?: number) => Promise<void>;
}

interface Backlog {
  cards: CardDrawing[];
  next: number;
}

export class SiteCards {
  /** Per blog, the missing cards its first job found, and how far the jobs since have come. */
  private readonly backlogs = new Map<string, Backlog>();

  constructor(private readonly deps: SiteCardsDeps) {}

  /** Drops the blog's backlog: a full render names other cards (a renamed or recoloured blog). */
  forget(blogId: string): void {
    this.backlogs.delete(blogId);
  }

  async run(job: PublishJob): Promise<void> {
    const { blogs, accounts, fullSite, purge } = this.deps;
    const blog = await blogs.findById(job.blogId);
    if (!blog) {
      this.forget(job.blogId);
      return;
    }
    let backlog = this.backlogs.get(blog.id);
    let fresh = false;
    if (!backlog || backlog.next >= backlog.cards.length) {
      backlog = { cards: await fullSite.missingCards(blog, await planOf(accounts, blog)), next: 0 };
      fresh = true;
    }
    const { batch, next } = await this.nextBatch(blog.id, backlog);
    // draw, write
    const changedKeys = await fullSite.drawSome(blog, batch);
    // Only now: a batch that failed to draw is taken again by the job's retry.
    backlog.next = next;
    // purge
    await purge.changed(blog, { attempt: job.attempts, changedKeys, allKeys: changedKeys });
    if (backlog.next < backlog.cards.length) {
      this.backlogs.set(blog.id, backlog);
      await this.deps.queueCards(blog, job.id);
    } else {
      this.backlogs.delete(blog.id);
      // A used-up backlog from an earlier look: one more look finds what went missing since.
      if (!fresh) await this.deps.queueCards(blog, job.id);
    }
  }

  /**
   * Up to CARDS_PER_JOB cards of the backlog the blog still names, and where the next batch
   * starts. One drawn since by its post's change (pipelines/drawPostCards.ts) is drawn again:
   * rare, and a store that lost its files keeps their recorded hashes, so the hashes cannot say
   * which cards it holds.
   */
  private async nextBatch(blogId: string, backlog: Backlog): Promise<{ batch: CardDrawing[]; next: number }> {
    const batch: CardDrawing[] = [];
    let next = backlog.next;
    for (let looked = 0; batch.length < CARDS_PER_JOB && looked < LOOKS_PER_JOB && next < backlog.cards.length; ) {
      const candidates = backlog.cards.slice(next, next + CARDS_PER_JOB - batch.length);
      next += candidates.length;
      looked += candidates.length;
      const named = await this.deps.wanted.of(
        blogId,
        candidates.map((card) => card.key),
      );
      batch.push(...candidates.filter((card) => named.has(card.key)));
    }
    return { batch, next };
  }
}
