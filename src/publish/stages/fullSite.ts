/**
 * The render and write stages of a whole blog: every object rendered from the database, then
 * written to the store (a rebuild) or compared with it (verify). Objects are rendered and
 * handled a chunk at a time (parallel/renderSiteInChunks.ts), so the memory a rebuild takes
 * follows the chunk, not the blog.
 */
import type { ObjectHashesRepo } from '../../db/objectHashesRepo.js';
import type { EncodedPost, SiteRepo } from '../../db/siteRepo.js';
import { forEachConcurrently } from '../../lib/concurrently.js';
import { MEDIA_DIR } from '../../media/mediaNames.js';
import { templatesDir } from '../../lib/paths.js';
import type { Plan } from '../../domain/plans.js';
import type { SiteUrls } from '../../domain/siteUrls.js';
import type { SiteStore } from '../../storage/siteStore.js';
import type { ListingCache } from '../listing/listingCache.js';
import { plainSummary } from '../listing/lazySummary.js';
import { toSiteBlog, toSitePost } from './loadSite.js';
import { collectTagsCooperatively, FEED_SIZE } from '../render/archive.js';
import { FEED_ITEM_MAX_HTML_BYTES } from '../render/feeds.js';
import { createRenderContext } from '../render/renderContext.js';
import type { CachePolicy } from '../../domain/cacheHeaders.js';
import { searchKey } from '../render/renderPaths.js';
import { siteRenders, type SitePlan } from '../pages/fullRender.js';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { whileWaiting } from '../../lib/whileWaiting.js';
import type { Theme } from '../render/renderTheme.js';
import type { SitePostSummary } from '../../domain/siteTypes.js';
import type { ChunkPost } from '../parallel/chunkPosts.js';
import { renderSiteInChunks, siteObjectCount, type ParallelRenderOptions } from '../parallel/renderSiteInChunks.js';
import { SiteWriter, writeSite, type WriteOptions, type WriteResult } from './writeSite.js';
import type { RenderSlots } from '../parallel/renderSlots.js';
import type { BlogWithDomain } from '../../domain/blog.js';
import type { CardDrawer } from '../cards/cardDrawer.js';
import type { CardDrawing } from '../cards/cardSpec.js';
import { drawCards, drawingsOf } from './drawCards.js';

export interface FullSiteOptions extends WriteOptions {
  /**
   * Work let in between two chunks (the blog's post jobs waiting behind the render): returns the
   * keys it rendered, deleted or will draw, which the render then leaves as they are, neither
   * written again from its older plan nor deleted as stale.
   */
  between?: () => Promise<readonly string[]>;
}

export interface FullSiteWrite {
  result: WriteResult;
  /** What the edge may hold: the objects written or found unchanged, and the stale keys deleted. */
  keys: string[];
  /** Cards the pages name that are left for `site_cards` jobs to draw (missingCards). */
  cardsLeft: number;
}

/**
 * The most missing cards a full render draws itself: a small blog's, or a renamed one's, go out
 * with its pages. More are all left to `site_cards` jobs: drawing even a few in the render made
 * a first rebuild of 100 posts take 20 s instead of a few (a worker's first card parses the
 * fonts, and a loaded VM draws a card in a quarter of a second or more).
 */
export const INLINE_CARDS = 16;
export interface FullSiteDeps {
  site: Pick<SiteRepo, 'newestPublished' | 'redirects' | 'bodyBytes' | 'publishedEncodedByIds'>;
  store: SiteStore;
  hashes: ObjectHashesRepo;
  urls: SiteUrls;
  theme: Theme;
  /** Cache-Control of rendered pages. */
  cache: CachePolicy;
  listings: Pick<ListingCache, 'get'>;
  /** Bound the whole-blog work of the process (full renders, reindexes) together. */
  slots: RenderSlots;
  /** Draws the social cards the store lacks. */
  cards: CardDrawer;
  /** FOLIO_SOCIAL_CARDS: whether pages name drawn cards. */
  socialCards: boolean;
}

export interface VerifyReport {
  checked: number;
  missing: string[];
  different: string[];
  extra: string[];
  /** The objects of uploaded images among `missing` (pipelines/rebuildSite.ts, verify). */
  missingMedia?: string[];
  /**
   * Cards the pages name that the store lacks, not counted in `missing`: a big blog's are drawn
   * after its pages by `site_cards` jobs, and any rebuild draws them again.
   */
  undrawnCards: string[];
}

const SEARCH_PREFIX = '_search/';
const STATIC_SEARCH_PREFIX = 'search/';

/** Stored objects read at once by verify. */
const VERIFY_READS = 16;
/** Post bodies read from the database per turn of the event loop (postBodies). */
const BODIES_PER_READ = 40;

/** Listed posts made plain per turn of the event loop (a restored listing reads their rows). */
const SUMMARIES_PER_TURN = 2000;

export class FullSite {
  constructor(private readonly deps: FullSiteDeps) {}

  /**
   * Renders and writes every object of the blog and deletes the stale ones. `keys` are the
   * objects written or found unchanged and the stale keys deleted: what the edge may hold.
   */
  write(blog: BlogWithDomain, plan: Plan, options: FullSiteOptions = {}): Promise<FullSiteWrite> {
    return this.deps.slots.run(() => this.writeNow(blog, plan, options));
  }

  /**
   * The cards the blog's pages name and the store lacks, newest first (the `site_cards` job,
   * pipelines/drawSiteCards.ts, draws them a batch at a time). One listing of the store and one
   * pass over the blog: a big blog's job takes this once, not once per batch.
   */
  missingCards(blog: BlogWithDomain, plan: Plan): Promise<CardDrawing[]> {
    return this.deps.slots.run(async () => {
      const held = new Set(await this.staleKeys(blog.slug, new Set()));
      return (await drawingsOf(await this.plan(blog, plan))).filter((card) => !held.has(card.key));
    });
  }

  /** Draws and writes `cards` (which the store lacks); returns the keys written. */
  drawSome(blog: BlogWithDomain, cards: readonly CardDrawing[]): Promise<string[]> {
    return this.deps.slots.run(async () => {
      const { store, hashes } = this.deps;
      const changedKeys: string[] = [];
      await drawCards(this.deps.cards, blog.accountId, cards, async (objects) => {
        changedKeys.push(...(await writeSite(store, hashes, blog.id, objects, [], { force: true })).changedKeys);
      });
      return changedKeys;
    });
  }

  /** Compares the store with what the database says the blog should be. */
  verify(blog: BlogWithDomain, plan: Plan): Promise<VerifyReport> {
    return this.deps.slots.run(() => this.verifyNow(blog, plan));
  }

  private async writeNow(blog: BlogWithDomain, plan: Plan, { between, ...options }: FullSiteOptions): Promise<FullSiteWrite> {
    const planned = await this.plan(blog, plan);
    // The store is listed while the pages render: the listing only needs the keys at the end.
    const stored = this.staleKeys(blog.slug, new Set());
    stored.catch(() => undefined);
    // Each of these is long for a big blog: requests get a turn in between (and within the tags).
    const sitePlan: SitePlan = { ...planned, tagGroups: await collectTagsCooperatively(planned.posts) };
    const renders = siteRenders(sitePlan);
    await yieldToLoop();
    const cards = await drawingsOf(sitePlan);
    const total = siteObjectCount(sitePlan, renders) + cards.length;
    const writer = new SiteWriter(this.deps.store, this.deps.hashes, blog.id, { ...options, bulk: total > 64, total });
    await yieldToLoop();
    // A chunk is written while the next one is read and rendered.
    let writing: Promise<void> = Promise.resolve();
    let cardsLeft = 0;
    const leftAlone = new Set<string>();
    const mine = <T extends { key: string }>(objects: T[]): T[] => (leftAlone.size === 0 ? objects : objects.filter((object) => !leftAlone.has(object.key)));
    // Only while none of the render's writes is in flight, so what runs between never races them.
    const letIn = between
      ? async () => {
          const theirs = await between();
          for (const key of theirs) leftAlone.add(key);
          writer.leave(theirs);
        }
      : null;
    try {
      for await (const objects of renderSiteInChunks(sitePlan, this.postBodies, this.renderOptions, renders)) {
        await writing;
        await letIn?.();
        writing = writer.write(mine(objects));
        // Awaited on the next turn; a failure meanwhile must not count as unhandled.
        writing.catch(() => undefined);
      }
      await writing;
      // A big blog's store listing can outlast its render (about 3 s more at 50,000 posts).
      if (letIn) await whileWaiting(stored, letIn);
      // draw: after the pages, which must not wait for a big blog's first cards (minutes of
      // work); the store's listing says which cards exist, so a rebuild of an unchanged blog
      // draws none. A few are drawn here; more are all left to `site_cards` jobs.
      const held = new Set(await stored);
      writer.keep(cards.filter((card) => held.has(card.key)).map((card) => card.key));
      const missing = mine(cards.filter((card) => !held.has(card.key)));
      const inline = missing.length <= INLINE_CARDS ? missing : [];
      // The store lacks these, whatever hash was recorded for them.
      await drawCards(this.deps.cards, blog.accountId, inline, (objects) => writer.write(objects, true));
      cardsLeft = missing.length - inline.length;
      writer.passOver(cardsLeft);
    } catch (err) {
      // A render that failed while a chunk was being written lets that write end first (a retry
      // of the job must not race it); the writes the store did accept need not be repeated.
      await writing.catch(() => undefined);
      await writer.settle();
      throw err;
    }
    const stale = (await stored).filter((key) => !writer.keys.has(key));
    const result = await writer.finish(stale, letIn ?? undefined);
    return { result, keys: [...writer.keys, ...stale], cardsLeft };
  }

  private async verifyNow(blog: BlogWithDomain, plan: Plan): Promise<VerifyReport> {
    const report: VerifyReport = { checked: 0, missing: [], different: [], extra: [], undrawnCards: [] };
    const rendered = new Set<string>();
    const sitePlan = await this.plan(blog, plan);
    for await (const objects of renderSiteInChunks(sitePlan, this.postBodies, this.renderOptions)) {
      // A chunk's stored objects are read VERIFY_READS at a time, so reading keeps up with
      // rendering; the findings are listed in render order all the same.
      const findings = new Array<'missing' | 'different' | null>(objects.length);
      await forEachConcurrently(objects.keys(), VERIFY_READS, async (i) => {
        const object = objects[i]!;
        const stored = await this.deps.store.get(object.key);
        if (!stored) findings[i] = 'missing';
        else if (
          !stored.body.equals(Buffer.from(object.body)) ||
          stored.contentType !== object.contentType ||
          stored.cacheControl !== object.cacheControl ||
          (stored.redirectTo ?? null) !== (object.redirectTo ?? null)
        ) {
          findings[i] = 'different';
        }
      });
      for (const [i, object] of objects.entries()) {
        report.checked += 1;
        rendered.add(object.key);
        const finding = findings[i];
        if (finding) report[finding].push(object.key);
      }
    }
    // Cards are drawn, not rendered: a named card is only looked for, never compared.
    const stored = await this.staleKeys(blog.slug, new Set());
    const held = new Set(stored);
    for (const card of await drawingsOf(sitePlan)) {
      rendered.add(card.key);
      if (held.has(card.key)) report.checked += 1;
      else report.undrawnCards.push(card.key);
    }
    report.extra = stored.filter((key) => !rendered.has(key));
    return report;
  }

  /**
   * What a full render works from: the listing's summaries (a copy: the cached listing changes
   * with later publishes while the render runs), the feeds' newest bodies and the redirects.
   * The bodies of the post pages are read a chunk at a time (postBodies).
   */
  private async plan(blog: BlogWithDomain, plan: Plan): Promise<SitePlan> {
    const { site, urls, theme, cache } = this.deps;
    const listing = await this.deps.listings.get(blog.id);
    const ctx = createRenderContext({ theme, blog: toSiteBlog(blog, plan, urls, this.deps.socialCards), titleCounts: listing.titleCounts, cache });
    const listed = [...listing.posts];
    // Plain objects, for the worker threads; a restored listing reads its posts' rows here, a
    // page per turn of the event loop.
    const posts: SitePostSummary[] = new Array(listed.length);
    for (let i = 0; i < listed.length; i++) {
      if (i > 0 && i % SUMMARIES_PER_TURN === 0) await yieldToLoop();
      posts[i] = plainSummary(listed[i]!);
    }
    return {
      ctx,
      posts,
      newest: (await site.newestPublished(blog.id, FEED_SIZE, FEED_ITEM_MAX_HTML_BYTES)).map(toSitePost),
      redirects: await site.redirects(blog.id),
    };
  }

  /** Chunks end before their bodies pass a byte budget, so a blog of large posts takes no more memory per chunk. */
  private readonly renderOptions: ParallelRenderOptions = {
    themeDir: templatesDir,
    bodyBytes: (posts) => this.deps.site.bodyBytes(posts.map((post) => post.id)),
  };

  /** A chunk's bodies, BODIES_PER_READ posts per turn of the event loop: a whole chunk's HTML read at once would hold it. */
  private readonly postBodies = async (posts: readonly SitePostSummary[]): Promise<ChunkPost[]> => {
    const ids = posts.map((post) => post.id);
    const bodies: ChunkPost[] = [];
    for (let start = 0; start < ids.length; start += BODIES_PER_READ) {
      if (start > 0) await yieldToLoop();
      for (const row of await this.deps.site.publishedEncodedByIds(ids.slice(start, start + BODIES_PER_READ))) bodies.push(chunkPost(row));
    }
    return bodies;
  };

  /** Objects under the blog's prefix that the render did not produce (search indexes and uploaded media excluded). */
  private async staleKeys(blogSlug: string, rendered: ReadonlySet<string>): Promise<string[]> {
    const prefix = `${blogSlug}/`;
    // The search indexes are written by their own writers, and media by uploads: not rendered.
    const isIndex = (key: string) =>
      key.startsWith(`${prefix}${MEDIA_DIR}/`) ||
      key.startsWith(`${prefix}${SEARCH_PREFIX}`) ||
      (key.startsWith(`${prefix}${STATIC_SEARCH_PREFIX}`) && key !== searchKey(blogSlug));
    return (await this.deps.store.list(prefix)).filter((key) => !rendered.has(key) && !isIndex(key));
  }
}

/** The post as a chunk carries it: its bodies stay bytes, decoded by the thread that renders them. */
function chunkPost(row: EncodedPost): ChunkPost {
  return { ...toSitePost({ ...row, contentMd: '', contentHtml: '' }), contentMd: row.contentMd, contentHtml: row.contentHtml };
}
