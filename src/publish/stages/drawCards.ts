/**
 * The draw stage: the cards a render named (pages/cards.ts) that the store lacks, drawn on the
 * worker pool and handed out as objects to write. A card's key hashes what it shows, so one the
 * store holds is never drawn again.
 */
import { CACHE_CONTROL_ASSET, CONTENT_TYPES } from '../../domain/cacheHeaders.js';
import { forEachConcurrently } from '../../lib/concurrently.js';
import type { SiteObject } from '../../storage/siteStore.js';
import type { CardDrawer } from '../cards/cardDrawer.js';
import type { CardDrawing } from '../cards/cardSpec.js';
import { drawn } from '../pages/catalogue.js';
import type { SitePlan } from '../pages/fullRender.js';
import { viewOfPlan } from '../pages/siteView.js';
import { setImmediate as yieldToLoop } from 'node:timers/promises';

/**
 * Cards asked of the pool at once for one blog: enough to keep its share of the workers busy
 * (FairWorkerPool leaves one to other accounts), few enough that a big blog's first rebuild holds
 * only a handful of PNGs in memory.
 */
const IN_FLIGHT = 4;

/** A drawn card as the store keeps it: immutable, since its URL changes with its content. */
export function cardObject(key: string, png: Buffer): SiteObject {
  return { key, body: png, contentType: CONTENT_TYPES.png, cacheControl: CACHE_CONTROL_ASSET };
}

/**
 * Draws `cards` for `tenant` (the blog's account), IN_FLIGHT at a time, and hands each drawn
 * object to `write` as soon as it is drawn, so drawing and writing overlap.
 */
export async function drawCards(
  drawer: CardDrawer,
  tenant: string,
  cards: readonly CardDrawing[],
  write: (objects: SiteObject[]) => Promise<void>,
): Promise<void> {
  const unique = [...new Map(cards.map((card) => [card.key, card])).values()];
  await forEachConcurrently(unique, IN_FLIGHT, async (card) => {
    await write([cardObject(card.key, await drawer.draw(tenant, card.spec))]);
  });
}

/** Cards named per turn of the event loop (drawingsOf). */
const CARDS_PER_TURN = 2000;

/** Every card the blog's pages name (pages/cards.ts), the blog's first, then the posts' newest first. */
export async function drawingsOf(plan: SitePlan): Promise<CardDrawing[]> {
  const site = viewOfPlan(plan);
  const cards: CardDrawing[] = [];
  for (const type of drawn) {
    for (const card of type.all(site)) {
      // Each card hashes what it shows: a big blog's would hold the event loop at once.
      if (cards.push(card) % CARDS_PER_TURN === 0) await yieldToLoop();
    }
  }
  return cards;
}
