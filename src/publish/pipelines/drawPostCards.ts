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
 *
 * Outside the job order, a card can land after a later change of its post (a rename, a new
 * title) whose job looked for the post's cards before it existed. So after writing, a draw
 * settles its cards against what the database names now (stages/wantedCards.ts): a card no page
 * names goes, one that went but is named again comes back. A job that commits after that last
 * look finds the card in the store and handles it as any other.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { BlogWithDomain } from '../../domain/blog.js';
import type { ObjectHashesRepo } from '../../db/objectHashesRepo.js';
import { KeyedQueue } from '../../lib/keyedQueue.js';
import type { Logger } from '../../lib/logger.js';
import type { SiteObject, SiteStore } from '../../storage/siteStore.js';
import type { CardDrawer } from '../cards/cardDrawer.js';
import type { CardDrawing } from '../cards/cardSpec.js';
import type { CdnSync } from '../stages/cdnSync.js';
import { drawCards } from '../stages/drawCards.js';
import type { WantedCards } from '../stages/wantedCards.js';
import { writeSite } from '../stages/writeSite.js';

export interface PostCardsDeps {
  store: SiteStore;
  hashes: ObjectHashesRepo;
  cards: CardDrawer;
  /** The cards the blog's pages name as the database stands. */
  wanted: Pick<WantedCards, 'of'>;
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
/** Looks at the database a draw takes before it leaves its cards to the blog's later jobs. */
const SETTLE_ROUNDS = 4;

export class PostCards {
  /** One blog's draws in order, so two changes of a post never write its cards at once. */
  private readonly queue = new KeyedQueue<string>();

  constructor(private readonly deps: PostCardsDeps) {}

  /** Draws, writes and purges the `drawings` the store still lacks and the blog still names, soon; never throws. */
  drawSoon(blog: BlogWithDomain, drawings: readonly CardDrawing[]): void {
    const { logger } = this.deps;
    this.queue
      .run(blog.id, async () => {
        await this.quiet(blog.id);
        await this.draw(blog, drawings);
      })
      .catch(async (err: unknown) => {
        logger.warn({ err, blog: blog.slug }, 'social cards not drawn; a site_cards job will draw them');
        await this.deps.queueCards(blog);
      })
      .catch((err: unknown) => logger.warn({ err, blog: blog.slug }, 'site_cards job not recorded; the next full render queues it again'));
  }

  private async draw(blog: BlogWithDomain, drawings: readonly CardDrawing[]): Promise<void> {
    const { store, hashes, cards, purge, wanted } = this.deps;
    const missing: CardDrawing[] = [];
    for (const card of drawings) if ((await hashes.get(blog.id, card.key)) === null) missing.push(card);
    if (missing.length === 0) return;
    // A change since the drawings were named may have made some of them stale already.
    const named = await wanted.of(
      blog.id,
      missing.map((card) => card.key),
    );
    const toDraw = missing.filter((card) => named.has(card.key));
    const drawn = new Map<string, SiteObject>();
    const changedKeys: string[] = [];
    await drawCards(cards, blog.accountId, toDraw, async (objects) => {
      for (const object of objects) drawn.set(object.key, object);
      changedKeys.push(...(await writeSite(store, hashes, blog.id, objects)).changedKeys);
    });
    changedKeys.push(...(await this.settle(blog, drawn)));
    await purge.changed(blog, { attempt: 1, changedKeys, allKeys: changedKeys });
  }

  /**
   * Brings the `drawn` cards in step with what the database names: a stale one is removed, a
   * removed one named again is written back. Returns the keys it changed.
   */
  private async settle(blog: BlogWithDomain, drawn: ReadonlyMap<string, SiteObject>): Promise<string[]> {
    const { store, hashes, wanted, logger } = this.deps;
    const changedKeys: string[] = [];
    if (drawn.size === 0) return changedKeys;
    for (let round = 0; round < SETTLE_ROUNDS; round++) {
      const named = await wanted.of(blog.id, [...drawn.keys()]);
      const put: SiteObject[] = [];
      const remove: string[] = [];
      for (const [key, object] of drawn) {
        const stored = (await hashes.get(blog.id, key)) !== null;
        if (named.has(key) && !stored) put.push(object);
        else if (!named.has(key) && stored) remove.push(key);
      }
      if (put.length === 0 && remove.length === 0) return changedKeys;
      changedKeys.push(...(await writeSite(store, hashes, blog.id, put, remove)).changedKeys);
    }
    logger.warn({ blog: blog.slug }, 'social cards still changing under their draw; the next change or rebuild settles them');
    return changedKeys;
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
