/**
 * A post's social card waits while its blog's publish jobs keep coming (pipelines/drawPostCards.ts):
 * drawn once they pause, or once the longest wait has passed. Real parts throughout: a folder
 * store, object hashes in a SQLite file, cards drawn in place by the real drawer, and the blog's
 * jobs standing in a real KeyedQueue, as the job runner keeps them.
 */
import { join } from 'node:path';
import { setImmediate as turn, setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { noCdn } from '../../../src/cdn/cdnPurger.js';
import { openDatabase } from '../../../src/db/database.js';
import { ObjectHashesRepo } from '../../../src/db/objectHashesRepo.js';
import { SqliteClient } from '../../../src/db/sql/sqliteClient.js';
import { SiteUrls } from '../../../src/domain/siteUrls.js';
import { KeyedQueue } from '../../../src/lib/keyedQueue.js';
import { createLogger } from '../../../src/lib/logger.js';
import { PooledCardDrawer, type CardDrawer, type CardTasks } from '../../../src/publish/cards/cardDrawer.js';
import { postCard, type CardDrawing } from '../../../src/publish/cards/cardSpec.js';
import { PostCards } from '../../../src/publish/pipelines/drawPostCards.js';
import { CdnSync } from '../../../src/publish/stages/cdnSync.js';
import { FsSiteStore } from '../../../src/storage/fsSiteStore.js';
import type { TaskRunner } from '../../../src/workers/taskRunner.js';
import { testBlog } from '../../support/testBlog.js';
import { testTempDir } from '../../support/tempDir.js';

const blog = testBlog('burst', 'Burst Notes');

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** PostCards over real parts; `draws` counts the cards the drawer was asked for. */
function setUp(options: { maxWaitMs?: number } = {}) {
  const dir = testTempDir('folio-post-cards-');
  const db = openDatabase(join(dir, 'folio.db'));
  const sql = new SqliteClient(db);
  closers.push(async () => {
    await sql.close();
    db.close();
  });
  const hashes = new ObjectHashesRepo(sql);
  const store = new FsSiteStore({ root: join(dir, 'site') });
  // No worker pool here: the real drawer draws in place.
  const real = new PooledCardDrawer({ available: false } as unknown as TaskRunner<CardTasks>);
  let draws = 0;
  const drawer: CardDrawer = {
    draw: (tenant, spec) => {
      draws += 1;
      return real.draw(tenant, spec);
    },
  };
  const jobs = new KeyedQueue<string>();
  const cards = new PostCards({
    store,
    hashes,
    cards: drawer,
    // The post stays as drawn. Which cards a late draw keeps is tested end to end, with the
    // database, in test/integration/socialCards.test.ts.
    wanted: { of: async (_blogId, keys) => new Set(keys) },
    purge: new CdnSync({ cdn: noCdn, urls: new SiteUrls({ publicScheme: 'https', serviceDomain: 'folio.example' }) }),
    logger: createLogger('silent'),
    queueCards: async () => undefined,
    blogJobs: jobs,
    ...options,
  });
  return { cards, jobs, hashes, draws: () => draws };
}

function drawing(title: string): CardDrawing {
  const card = postCard(
    { id: blog.id, slug: blog.slug, name: blog.name, description: '', baseUrl: 'https://burst.folio.example', themeConfig: {}, updatedAt: blog.updatedAt },
    {
      id: 'p1',
      slug: 'hello',
      title,
      metaDescription: '',
      ogImageUrl: null,
      tags: [],
      publishedAt: blog.createdAt,
      createdAt: blog.createdAt,
      updatedAt: blog.updatedAt,
    },
  );
  if (!card) throw new Error('no card');
  return card;
}

/** A job of the blog that runs until `release` is called. */
function holdJobs(jobs: KeyedQueue<string>): () => void {
  let release!: () => void;
  void jobs.run(blog.id, () => new Promise<void>((resolve) => (release = resolve)));
  return () => release();
}

describe('post cards beside a burst', () => {
  it('waits while the blog has jobs running or queued, and draws once they are done', async () => {
    const { cards, jobs, hashes, draws } = setUp();
    const first = holdJobs(jobs);
    const card = drawing('Drawn after the burst');
    cards.drawSoon(blog, [card]);
    // A second job queued behind the first: the card waits for it too.
    let second!: () => void;
    void jobs.run(blog.id, () => new Promise<void>((resolve) => (second = resolve)));
    await sleep(100);
    expect(draws()).toBe(0);
    first();
    await turn();
    await sleep(50);
    expect(draws()).toBe(0);
    second();
    await cards.idle();
    expect(draws()).toBe(1);
    expect(await hashes.get(blog.id, card.key)).not.toBeNull();
  });

  it('draws at once when the blog is quiet', async () => {
    const { cards, hashes, draws } = setUp({ maxWaitMs: 60_000 });
    const card = drawing('Drawn at once');
    cards.drawSoon(blog, [card]);
    await cards.idle();
    expect(draws()).toBe(1);
    expect(await hashes.get(blog.id, card.key)).not.toBeNull();
  });

  it('draws after the longest wait even while the jobs go on', async () => {
    const { cards, jobs, hashes } = setUp({ maxWaitMs: 200 });
    const release = holdJobs(jobs);
    const card = drawing('Drawn during a long burst');
    cards.drawSoon(blog, [card]);
    await cards.idle();
    expect(jobs.busy(blog.id)).toBe(true);
    expect(await hashes.get(blog.id, card.key)).not.toBeNull();
    release();
  });
});
