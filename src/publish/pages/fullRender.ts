/**
 * Every object of one blog, for a full rebuild: the page types of the catalogue, each page
 * rendered by the same function a post's change uses (postChange.ts), so a partial publish
 * writes identical objects.
 */
import type { SiteObject } from '../../storage/siteStore.js';
import { FEED_SIZE, sortOldestFirst } from '../render/archive.js';
import { createRenderContext } from '../render/renderContext.js';
import type { CachePolicy } from '../../domain/cacheHeaders.js';
import type { Theme } from '../render/renderTheme.js';
import type { SiteBlog, SitePost } from '../../domain/siteTypes.js';
import type { PostNeighbours } from '../render/renderPostPage.js';
import { afterPosts, beforePosts, perPost } from './catalogue.js';
import type { PageType } from './pageType.js';
import { postNeighbours } from './postPages.js';
import { viewOfPlan, type SitePlan, type SiteRedirect, type WholeSite } from './siteView.js';

export type { SitePlan, SiteRedirect };
export { postNeighbours };

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
  const perPostObjects = posts.flatMap((post, index) => renderPerPost(plan.ctx, post, postNeighbours(posts, index)));
  return [...head.map((render) => render()), ...perPostObjects, ...tail.map((render) => render())];
}

/** The objects of one post (its page, its twin: catalogue.ts perPost), as a full render writes them. */
export function renderPerPost(ctx: SitePlan['ctx'], post: SitePost, neighbours: PostNeighbours): SiteObject[] {
  return perPost.map((type) => type.renderPost(ctx, post, neighbours));
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
  const site = viewOfPlan(plan);
  return { head: rendersOf(site, beforePosts), tail: rendersOf(site, afterPosts) };
}

function rendersOf(site: WholeSite, types: readonly PageType<unknown>[]): (() => SiteObject)[] {
  const renders: (() => SiteObject)[] = [];
  for (const type of types) for (const page of type.all(site)) renders.push(() => type.render(site, page));
  return renders;
}
