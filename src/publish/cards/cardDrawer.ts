/**
 * Cards drawn off the event loop: each is a task of the shared worker pool (src/heavyWork/), fair
 * between accounts like all heavy work. Without a compiled worker (vitest without a build) the
 * card is drawn in place: correct, but it holds the event loop.
 */
import type { TaskRunner } from '../../workers/taskRunner.js';
import type { CardSpec } from './cardSpec.js';

/** The kind of work cards hand to the shared pool (src/heavyWork/heavyTasks.ts runs it). */
export interface CardTasks {
  /** A card's spec → its PNG bytes. */
  drawCard: { request: CardSpec; result: Uint8Array };
}

export interface CardDrawer {
  /** `tenant` is the account the card is drawn for: it decides the fair share of the workers. */
  draw(tenant: string, spec: CardSpec): Promise<Buffer>;
}

export class PooledCardDrawer implements CardDrawer {
  constructor(private readonly heavy: TaskRunner<CardTasks>) {}

  async draw(tenant: string, spec: CardSpec): Promise<Buffer> {
    if (!this.heavy.available) {
      const { drawCard } = await import('./drawCard.js');
      return Buffer.from(await drawCard(spec));
    }
    const png = await this.heavy.run(tenant, 'drawCard', spec);
    return Buffer.from(png.buffer, png.byteOffset, png.byteLength);
  }
}
