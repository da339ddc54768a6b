/**
 * Every page type of a blog, in the order a full render writes them. The full render
 * (fullRender.ts siteRenders), a post's change (postChange.ts renderPostChange) and the warm-up's
 * read-ahead (postChange.ts listedByNextPost) all go through this list, so a new page type is
 * one module here and one entry below, and both renders write it alike.
 */
import { archivePages } from './archivePages.js';
import { jsonFeed, llmsTxt, rssFeed } from './feeds.js';
import { homePage } from './homePage.js';
import { archiveIndex, monthPages } from './monthPages.js';
import { blogCards, postCards } from './cards.js';
import type { ChangedPages, DrawnPages, PageType, PerPostPages } from './pageType.js';
import { postPages, redirects } from './postPages.js';
import { postTwins } from './postTwins.js';
import { assets, notFoundPage, robotsTxt, searchPage } from './sitePages.js';
import { sitemaps } from './sitemap.js';
import { tagIndex, tagPages } from './tagPages.js';

/** What a full render writes before the post pages; the assets first, so no page goes out before its stylesheet. */
export const beforePosts: readonly PageType<unknown>[] = [assets, homePage, archivePages];

/** What a full render writes for each post, in this order, from the post's body. */
export const perPost: readonly PerPostPages<unknown>[] = [postPages, postTwins];

/** What a full render writes after the post pages. */
export const afterPosts: readonly PageType<unknown>[] = [
  redirects,
  tagPages,
  tagIndex,
  archiveIndex,
  searchPage,
  monthPages,
  notFoundPage,
  rssFeed,
  jsonFeed,
  sitemaps,
  robotsTxt,
  llmsTxt,
];

/** Every page type, the per-post types in their place. */
export const catalogue: readonly ChangedPages<unknown>[] = [...beforePosts, ...perPost, ...afterPosts];

/** The pictures drawn off the event loop (cards.ts), which the pipelines draw after rendering. */
export const drawn: readonly DrawnPages[] = [blogCards, postCards];
