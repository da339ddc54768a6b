/**
 * Every object of one blog, for a full rebuild. Built only from the single-object render
 * functions, so a partial publish that calls them directly produces identical objects.
 */
import { monthCounts, postsInMonth, renderArchiveIndexPage, renderMonthPage, renderTagIndexPage } from './renderIndexPages.js';
import type { SiteObject } from '../../storage/siteStore.js';
import { ARCHIVE_PAGE_SIZE, FEED_SIZE, HOME_LIST_MAX, TAG_LIST_MAX, archivePageCount, archivePageSlice, collectTags, sortOldestFirst } from './archive.js';
import { siteAssets } from './assets.js';
import { LLMS_POST_COUNT, renderJsonFeed, renderLlmsTxt, renderRobots, renderRss } from './feeds.js';
import { createRenderContext, type RenderContext } from './renderContext.js';
import type { CachePolicy } from '../../domain/cacheHeaders.js';
import { renderArchivePage, renderHomePage, renderTagArchivePage, renderTagPage } from './renderListPages.js';
import { renderNotFoundPage } from './renderNotFoundPage.js';
import { renderPostPage } from './renderPostPage.js';
import { renderSearchPage } from './renderSearchPage.js';
import { renderRedirect } from './renderRedirect.js';
import { sitemapRenders } from './sitemap.js';
import type { Theme } from './renderTheme.js';
import type { SiteBlog, SitePost, SitePostSummary } from '../../domain/siteTypes.js';

export interface SiteRedirect {
  /** The old slug, or an alias path (starting with `/`). */
  from: string;
  /** The post's current slug. */
  to: string;
}

export interface SiteInput {
  theme: Theme;
  blog: SiteBlog;
  /** Published posts, in any order. */
  posts: readonly SitePost[];
  redirects?: readonly SiteRedirect[];
  /** Cache-Control of the pages; default: the policy without a CDN purger. */
  cache?: CachePolicy;
}

export function renderSite(input: SiteInput): SiteObject[] {
  const posts = sortOldestFirst(input.posts);
  const plan = planSite(input, posts);
  const { head, tail } = siteRenders(plan);
  return [...head.map((render) => render()), ...posts.map((post, index) => renderPostPage(plan.ctx, post, postNeighbours(posts, index))), ...tail.map((render) => render())];
}

/**
 * What every page of a full render works from. The post pages aside, every object needs only
 * the posts' summaries, and the feeds the newest few bodies: a full render of a big blog holds
 * these and renders the post pages a chunk at a time (renderSiteInChunks.ts).
 */
export interface SitePlan {
  ctx: RenderContext;
  /** Every published post, oldest first. */
  posts: readonly SitePostSummary[];
  /** The newest FEED_SIZE posts with their bodies, newest first. */
  newest: readonly SitePost[];
  redirects: readonly SiteRedirect[];
}

/** The plan of renderSite: `oldestFirst` is `input.posts` sorted oldest first. */
export function planSite(input: SiteInput, oldestFirst: readonly SitePost[] = sortOldestFirst(input.posts)): SitePlan {
  return {
    ctx: createRenderContext({ theme: input.theme, blog: input.blog, posts: oldestFirst, ...(input.cache ? { cache: input.cache } : {}) }),
    posts: oldestFirst,
    newest: oldestFirst.slice(-FEED_SIZE).reverse(),
    redirects: input.redirects ?? [],
  };
}

/** The links of post `index` of the oldest-first list; the post pages of a full render use these. */
export function postNeighbours<T extends SitePostSummary>(posts: readonly T[], index: number): { older: T | null; newer: T | null } {
  return { older: posts[index - 1] ?? null, newer: posts[index + 1] ?? null };
}

/**
 * Every object of the blog but the post pages, each rendered when its function is called:
 * `head` comes before the post pages, `tail` after them (renderSite's order). The functions are
 * cheap to make, so a caller knows how many objects a full render writes before rendering any.
 */
export interface SiteRenders {
  head: (() => SiteObject)[];
  tail: (() => SiteObject)[];
}

export function siteRenders(plan: SitePlan): SiteRenders {
  const { ctx, posts } = plan;
  const newestFirst = (count: number): SitePostSummary[] => posts.slice(-count).reverse();
  // Assets first: a writer that keeps this order never publishes a page before its stylesheet.
  const head: (() => SiteObject)[] = siteAssets(ctx.blog.slug, ctx.theme.assets).map((asset) => () => asset);
  head.push(() => renderHomePage(ctx, newestFirst(HOME_LIST_MAX), posts.length));
  const pageCount = archivePageCount(posts.length);
  for (let page = 1; page <= pageCount; page += 1) {
    head.push(() => renderArchivePage(ctx, page, archivePageSlice(posts, page), pageCount));
  }

  const tail: (() => SiteObject)[] = [];
  // A live post always wins over an old address that a later post took.
  const liveSlugs = new Set(posts.map((post) => post.slug));
  for (const redirect of plan.redirects) {
    if (liveSlugs.has(redirect.from) || !liveSlugs.has(redirect.to)) continue;
    tail.push(() => renderRedirect(ctx, redirect.from, redirect.to));
  }
  const tags = collectTags(posts);
  for (const tag of tags) {
    const tagPages = archivePageCount(tag.posts.length);
    tail.push(() => renderTagPage(ctx, tag.name, tag.posts.slice(-TAG_LIST_MAX), tag.posts.length));
    for (let page = 1; page <= tagPages; page += 1) {
      tail.push(() => renderTagArchivePage(ctx, tag.name, page, archivePageSlice(tag.posts, page, ARCHIVE_PAGE_SIZE), tagPages));
    }
  }
  tail.push(
    () => renderTagIndexPage(ctx, tags),
    () => renderArchiveIndexPage(ctx, posts),
    () => renderSearchPage(ctx),
  );
  for (const month of monthCounts(posts)) tail.push(() => renderMonthPage(ctx, month, postsInMonth(posts, month)));
  tail.push(
    () => renderNotFoundPage(ctx),
    () => renderRss(ctx, plan.newest.slice(0, FEED_SIZE)),
    () => renderJsonFeed(ctx, plan.newest.slice(0, FEED_SIZE)),
    ...sitemapRenders(ctx, posts, tags),
    () => renderRobots(ctx),
    () => renderLlmsTxt(ctx, newestFirst(LLMS_POST_COUNT), posts.length),
  );
  return { head, tail };
}
