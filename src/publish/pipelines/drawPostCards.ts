/**
 * The social cards a post's change names and the store lacks, drawn after the change's pages
 * are live and outside the blog's job order: a card takes a worker a tenth of a second and more
 * (the fonts, once per worker), several times what the post's pages take, and neither the
 * author's answer nor the blog's next publish should wait for a picture. Not a durable job: a
 * draw that fails records a `site_cards` job instead, and a process that stops first leaves the
 * card to the next full render (`folio site verify` lists it under `undrawnCards`).
 */
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
}

export class PostCards {
  /** One blog's draws in order, so two changes of a post never write its cards at once. */
  private readonly queue = new KeyedQueue<string>();

  constructor(private readonly deps: PostCardsDeps) {}

  /** Draws, writes and purges the `drawings` the store still lacks, soon; never throws. */
  drawSoon(blog: BlogWithDomain, drawings: readonly CardDrawing[]): void {
    const { store, hashes, cards, purge, logger } = this.deps;
    this.queue
      .run(blog.id, async () => {
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

  idle(): Promise<void> {
    return this.queue.idle();
  }
}
