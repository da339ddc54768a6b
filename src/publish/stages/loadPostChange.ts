/**
 * The load stage of a post change: everything renderPostChange needs, read from the blog's
 * listing and the database as they are now, so a job run twice, late or after a crash renders
 * the same objects.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { AccountsRepo } from '../../db/accountsRepo.js';
import type { JobPayload } from '../../db/jobsRepo.js';
import type { ObjectHashesRepo } from '../../db/objectHashesRepo.js';
import type { SiteRepo } from '../../db/siteRepo.js';
import type { SiteUrls } from '../../domain/siteUrls.js';
import type { Listing, ListingCache } from '../listing/listingCache.js';
import type { PostChangeInput } from '../postChange.js';
import { FEED_SIZE, indexOfPost, positionOf } from '../render/archive.js';
import { FEED_ITEM_MAX_HTML_BYTES } from '../render/feeds.js';
import { blogLanguage, createRenderContext, type RenderContext } from '../render/renderContext.js';
import type { CachePolicy } from '../../domain/cacheHeaders.js';
import type { Theme } from '../render/renderTheme.js';
import type { SitePost, SitePostSummary } from '../../domain/siteTypes.js';
import { postCardPrefix } from '../cards/cardSpec.js';
import { planOf, toSiteBlog, toSitePost } from './loadSite.js';
import type { BlogWithDomain } from '../../domain/blog.js';

/** The answer when the change turned the blog's language: every page's `<html lang>` and labels change. */
export const LANGUAGE_TIPPED = Symbol('language tipped');

export interface LoadedPostChange {
  input: PostChangeInput;
  /** The post as it is now when it is live, else null. */
  live: SitePost | null;
}

export interface PostChangeLoaderDeps {
  site: Pick<SiteRepo, 'post' | 'postWithSource' | 'newestPublished' | 'redirectsOfPost'>;
  accounts: Pick<AccountsRepo, 'findById'>;
  urls: SiteUrls;
  theme: Theme;
  /** Cache-Control of rendered pages. */
  cache: CachePolicy;
  /** Published posts per blog, kept current from the change log so a publish does not re-read them all. */
  listings: Pick<ListingCache, 'get'>;
  /** The recorded cards of the post (pages/cards.ts removes the stale ones). */
  hashes: Pick<ObjectHashesRepo, 'keysUnder'>;
  /** FOLIO_SOCIAL_CARDS: whether pages name drawn cards. */
  socialCards: boolean;
}

/** What every change of a batch is loaded against: the blog's listing and newest posts, read once. */
export interface LoadedBlogState {
  blog: BlogWithDomain;
  listing: Listing;
  ctx: RenderContext;
  newest: SitePost[];
}

/** One change of a batch to load: its post and its job's payload. */
export interface ChangeToLoad {
  postId: string;
  payload: JobPayload;
}

export class PostChangeLoader {
  constructor(private readonly deps: PostChangeLoaderDeps) {}

  async load(blog: BlogWithDomain, postId: string, payload: JobPayload): Promise<LoadedPostChange | typeof LANGUAGE_TIPPED> {
    const state = await this.loadBlog(blog);
    if (state === LANGUAGE_TIPPED) return state;
    return this.loadChange(state, { postId, payload });
  }

  /**
   * The changes of a batch, all against one read of the blog's state, so the pages they share
   * render from one state whatever commits meanwhile. `unpublished`, read after the listing:
   * how many of the blog's changes the store may not show yet (listChange.ts says why).
   */
  async loadBatch(
    blog: BlogWithDomain,
    changes: readonly ChangeToLoad[],
    unpublished: () => Promise<number>,
  ): Promise<{ state: LoadedBlogState; changes: LoadedPostChange[] } | typeof LANGUAGE_TIPPED> {
    const state = await this.loadBlog(blog);
    if (state === LANGUAGE_TIPPED) return state;
    const unpublishedChanges = Math.max(changes.length, await unpublished());
    const loaded: LoadedPostChange[] = [];
    for (const change of changes) {
      const one = await this.loadChange(state, change);
      if (unpublishedChanges > 1) one.input.unpublishedChanges = unpublishedChanges;
      loaded.push(one);
    }
    return { state, changes: loaded };
  }

  private async loadBlog(blog: BlogWithDomain): Promise<LoadedBlogState | typeof LANGUAGE_TIPPED> {
    const { site, theme, cache } = this.deps;
    const listing = await this.deps.listings.get(blog.id);
    const siteBlog = toSiteBlog(blog, await planOf(this.deps.accounts, blog), this.deps.urls, this.deps.socialCards);
    if (listing.titleCountsBefore && blogLanguage(siteBlog, listing.titleCountsBefore) !== blogLanguage(siteBlog, listing.titleCounts)) return LANGUAGE_TIPPED;
    const newest = (await site.newestPublished(blog.id, FEED_SIZE, FEED_ITEM_MAX_HTML_BYTES)).map(toSitePost);
    const ctx = createRenderContext({ theme, blog: siteBlog, titleCounts: listing.titleCounts, cache });
    return { blog, listing, ctx, newest };
  }

  private async loadChange(state: LoadedBlogState, { postId, payload }: ChangeToLoad): Promise<LoadedPostChange> {
    const { site } = this.deps;
    const { blog, listing, ctx, newest } = state;
    const summaries = listing.posts;
    // The post's own Markdown renders its twin; its neighbours' pages need only their HTML.
    const row = await site.postWithSource(postId);
    const live = row && row.status === 'published' ? toSitePost(row) : null;
    // Rows of large posts are slow to read: the event loop gets a turn after each.
    await yieldToLoop();
    const neighbours = new Map<string, SitePost>();
    const addNeighbour = async (neighbour: { id: string } | undefined): Promise<void> => {
      const full = neighbour ? await site.post(neighbour.id) : null;
      if (full && full.status === 'published') neighbours.set(full.id, toSitePost(full));
      await yieldToLoop();
    };
    if (live) {
      // By its place (a binary search); the walk only if the listing's copy has another date.
      const placed = indexOfPost(summaries, live);
      const index = placed >= 0 ? placed : summaries.findIndex((p) => p.id === live.id);
      for (const neighbour of [summaries[index - 1], summaries[index + 1]]) await addNeighbour(neighbour);
    } else if (payload.previousPublishedAt) {
      // The posts on either side of the gap lose their link to the removed post.
      const after = positionOf(summaries, { id: postId, publishedAt: payload.previousPublishedAt });
      const around = after >= summaries.length ? [summaries[summaries.length - 1]] : [summaries[after - 1], summaries[after]];
      for (const neighbour of around) await addNeighbour(neighbour);
    }
    const redirects = live ? await site.redirectsOfPost(live.id) : [];
    const previousSlug = payload.previousSlug ?? (live ? undefined : row?.slug);
    const input: PostChangeInput = {
      ctx,
      summaries,
      tagged: (segment) => listing.tagged(segment),
      tagGroups: () => listing.tagGroups(),
      post: live,
      neighbours,
      newest,
      previousSlug,
      previousTags: [...(payload.previousTags ?? []), ...(row && !live ? row.tags : [])],
      tagsChanged: payload.previousTags !== undefined,
      wasLive: payload.wasLive,
      previousPublishedAt: payload.previousPublishedAt,
      postId,
      redirectsToPost: redirects,
      // A post that left the site takes its old addresses with it.
      removedRedirects: [...(payload.removedRedirects ?? []), ...(live ? [] : await site.redirectsOfPost(postId))],
      storedCards: await this.storedCards(blog, postId, live?.slug, previousSlug, summaries),
    };
    return { input, live };
  }

  /** The recorded cards under the post's slug, and under its previous slug unless another live post holds that now. */
  private async storedCards(
    blog: BlogWithDomain,
    postId: string,
    slug: string | undefined,
    previousSlug: string | undefined,
    summaries: readonly SitePostSummary[],
  ): Promise<string[]> {
    const { hashes } = this.deps;
    const cards = slug ? await hashes.keysUnder(blog.id, postCardPrefix(blog.slug, slug)) : [];
    if (previousSlug && previousSlug !== slug && !summaries.some((post) => post.slug === previousSlug && post.id !== postId)) {
      cards.push(...(await hashes.keysUnder(blog.id, postCardPrefix(blog.slug, previousSlug))));
    }
    return cards;
  }
}
