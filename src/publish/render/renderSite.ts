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
import type { CachePolicy } from './renderHeaders.js';
import { renderArchivePage, renderHomePage, renderTagArchivePage, renderTagPage } from './renderListPages.js';
import { renderNotFoundPage } from './renderNotFoundPage.js';
import { renderPostPage } from './renderPostPage.js';
import { renderSearchPage } from './renderSearchPage.js';
import { renderRedirect } from './renderRedirect.js';
import { renderSitemaps } from './sitemap.js';
import type { Theme } from './renderTheme.js';
import type { SiteBlog, SitePost } from './siteTypes.js';

export interface SiteRedirect {
  /** The old slug. */
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
  const plan = planSite(input);
  return assembleSite(input, plan, plan.posts.map((post, index) => renderPostPage(plan.ctx, post, postNeighbours(plan.posts, index))));
}

/** What every page of a full render shares: the context and the posts, oldest first. */
export interface SitePlan {
  ctx: RenderContext;
  posts: SitePost[];
}

export function planSite(input: SiteInput): SitePlan {
  const posts = sortOldestFirst(input.posts);
  return { ctx: createRenderContext({ theme: input.theme, blog: input.blog, posts, ...(input.cache ? { cache: input.cache } : {}) }), posts };
}

/** The links of post `index` of the oldest-first list; the post pages of a full render use these. */
export function postNeighbours(posts: readonly SitePost[], index: number): { older: SitePost | null; newer: SitePost | null } {
  return { older: posts[index - 1] ?? null, newer: posts[index + 1] ?? null };
}

/**
 * Every object of the blog, in renderSite's order, around post pages rendered elsewhere
 * (`postPages[i]` is the page of `plan.posts[i]`), so a parallel render gives the same list.
 */
export function assembleSite(input: SiteInput, plan: SitePlan, postPages: readonly SiteObject[]): SiteObject[] {
  return [...siteObjects(input, plan, postPages)];
}

/**
 * assembleSite one object at a time: the archive, tag and sitemap pages of a 10,000-post blog
 * take a few hundred milliseconds to render, and a caller on the server's event loop lets
 * requests in between (renderSiteParallel).
 */
export function* siteObjects(input: SiteInput, plan: SitePlan, postPages: readonly SiteObject[]): Generator<SiteObject> {
  const { ctx, posts } = plan;
  const newestFirst = [...posts].reverse();
  // Assets first: a writer that keeps this order never publishes a page before its stylesheet.
  yield* siteAssets(ctx.blog.slug, ctx.theme.assets);

  yield renderHomePage(ctx, newestFirst.slice(0, HOME_LIST_MAX), posts.length);
  const pageCount = archivePageCount(posts.length);
  for (let page = 1; page <= pageCount; page += 1) {
    yield renderArchivePage(ctx, page, archivePageSlice(posts, page), pageCount);
  }

  yield* postPages;

  // A live post always wins over an old address that a later post took.
  const liveSlugs = new Set(posts.map((post) => post.slug));
  for (const redirect of input.redirects ?? []) {
    if (liveSlugs.has(redirect.from) || !liveSlugs.has(redirect.to)) continue;
    yield renderRedirect(ctx, redirect.from, redirect.to);
  }

  const tags = collectTags(posts);
  for (const tag of tags) {
    const tagPages = archivePageCount(tag.posts.length);
    yield renderTagPage(ctx, tag.name, tag.posts.slice(-TAG_LIST_MAX), tag.posts.length);
    for (let page = 1; page <= tagPages; page += 1) {
      yield renderTagArchivePage(ctx, tag.name, page, archivePageSlice(tag.posts, page, ARCHIVE_PAGE_SIZE), tagPages);
    }
  }

  yield renderTagIndexPage(ctx, tags);
  yield renderArchiveIndexPage(ctx, posts);
  yield renderSearchPage(ctx);
  for (const month of monthCounts(posts)) yield renderMonthPage(ctx, month, postsInMonth(posts, month));

  yield renderNotFoundPage(ctx);
  yield renderRss(ctx, newestFirst.slice(0, FEED_SIZE));
  yield renderJsonFeed(ctx, newestFirst.slice(0, FEED_SIZE));
  yield* renderSitemaps(ctx, posts, tags);
  yield renderRobots(ctx);
  yield renderLlmsTxt(ctx, newestFirst.slice(0, LLMS_POST_COUNT), posts.length);
}
