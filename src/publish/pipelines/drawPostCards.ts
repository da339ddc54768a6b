/**
 * The social cards a post's change names and the store lacks, drawn after the change's pages
 * are live and outside the blog's job order: a card takes a worker a tenth of a second and more
 * (the fonts, once per worker), several times what the post's pages take, and neither the
 * author's answer nor the blog's next publish should wait for a picture. Not a durable job: a
 * draw that fails records a `site_cards` job instead, and a process that stops first leaves the
 * card to the next full render (`folio site verify` lists it under `undrawnCards`).
 *
 * While the blog's publish jobs keep coming (an agent's burst, a `folio push`), its cards wait
 * for a pause, up to MAX_WAIT_FOR_QUIET_MS: on a small VM a card costs as much CPU as a publish,
 * and drawing them beside the burst slows every post in it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { BlogWithDomain } from '../../domain/blog.js';
import type { ObjectHashesRepo } from '../../db/objectHashesRepo.js';
import { KeyedQueue } from '../../lib/keyedQueue.js';
import type { Logger } from '../../lib/logger.js';
import type { SiteStore } from '../../storage/siteStore.js';
import type { CardDrawer } from '../cards/cardDrawer.js';
import type { CardDrawing } from '../cards/cardSpec.js';
import type { CdnSync } from '../stages/cdnSync.js';
import { drawCards } from '../stages/drawCards.js';
import { writeSite } from '../stages/writeSite.js';

export interface PostCardsDeps {
  store: SiteStore;
  hashes: ObjectHashesRepo;
  cards: CardDrawer;
  purge: CdnSync;
  logger: Logger;
  /** Records a `site_cards` job of the blog (pipelines/drawSiteCards.ts), for a draw that failed. */
  queueCards: (blog: BlogWithDomain) => Promise<void>;
  /** The blog's publish jobs in this process (jobs/jobRunner.ts); without, cards never wait. */
  blogJobs?: { busy(blogId: string): boolean; settled(blogId: string): Promise<void> };
  /** The longest a draw waits for the blog's jobs to pause (MAX_WAIT_FOR_QUIET_MS unless set). */
  maxWaitMs?: number;
}

/** A burst longer than this still sees its cards drawn now and then: none waits for ever. */
export const MAX_WAIT_FOR_QUIET_MS = 20_000;

export class PostCards {
  /** One blog's draws in order, so two changes of a post never write its cards at once. */
  private readonly queue = new KeyedQueue<string>();

  constructor(private readonly deps: PostCardsDeps) {}

  /** Draws, writes and purges the `drawings` the store still lacks, soon; never throws. */
  drawSoon(blog: BlogWithDomain, drawings: readonly CardDrawing[]): void {
    const { store, hashes, cards, purge, logger } = this.deps;
    this.queue
      .run(blog.id, async () => {
        await this.quiet(blog.id);
        const missing: CardDrawing[] = [];
        for (const card of drawings) if ((await hashes.get(blog.id, card.key)) === null) missing.push(card);
        if (missing.length === 0) return;
        const changedKeys: string[] = [];
        await drawCards(cards, blog.accountId, missing, async (drawn) => {
          changedKeys.push(...(await writeSite(store, hashes, blog.id, drawn)).changedKeys);
        });
        await purge.changed(blog, { attempt: 1, changedKeys, allKeys: changedKeys });
      })
      .catch(async (err: unknown) => {
        logger.warn({ err, blog: blog.slug }, 'social cards not drawn; a site_cards job will draw them');
        await this.deps.queueCards(blog);
      })
      .catch((err: unknown) => logger.warn({ err, blog: blog.slug }, 'site_cards job not recorded; the next full render queues it again'));
  }

  /** Resolves once the blog has no publish job running or queued here, or the longest wait has passed. */
  private async quiet(blogId: string): Promise<void> {
    const jobs = this.deps.blogJobs;
    if (!jobs) return;
    const deadline = Date.now() + (this.deps.maxWaitMs ?? MAX_WAIT_FOR_QUIET_MS);
    while (jobs.busy(blogId)) {
      const left = deadline - Date.now();
      if (left <= 0) return;
      const timer = new AbortController();
      await Promise.race([jobs.settled(blogId), sleep(left, undefined, { signal: timer.signal }).catch(() => undefined)]);
      timer.abort();
    }
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }
}
