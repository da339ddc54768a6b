/**
 * A post's own page, and the objects left at its old addresses. Each post page links the posts
 * published just before and after it, so a post's change re-renders those neighbours too.
 */
import { renderPostPage } from '../render/renderPostPage.js';
import { renderRedirect } from '../render/renderRedirect.js';
import { postKey, redirectKey } from '../render/renderPaths.js';
import type { SitePost, SitePostSummary } from '../../domain/siteTypes.js';
import { indexIn } from './listChange.js';
import type { PageType, PerPostPages } from './pageType.js';
import type { SiteRedirect } from './siteView.js';

export interface PostPage {
  post: SitePost;
  /** The post's place in the blog's oldest-first list. */
  index: number;
}

/** The links of post `index` of the oldest-first list. */
export function postNeighbours<T extends SitePostSummary>(posts: readonly T[], index: number): { older: T | null; newer: T | null } {
  return { older: posts[index - 1] ?? null, newer: posts[index + 1] ?? null };
}

/**
 * The post pages. A full render renders them apart from the other types, from bodies it reads a
 * chunk at a time (renderSiteInChunks.ts and its workers call renderPost with the same
 * neighbours), which is why this type has no `all`.
 */
export const postPages: PerPostPages<PostPage> = {
  name: 'post pages',
  affectedBy: (site, change) => {
    const { posts, ctx } = site;
    const { post } = change;
    const render: PostPage[] = post ? [{ post, index: indexIn(posts, post) }] : [];
    // Neighbours show this post's title in their newer/older links, and gain or lose it.
    for (const neighbour of change.neighbours.values()) {
      const index = indexIn(posts, neighbour);
      if (index >= 0) render.push({ post: neighbour, index });
    }
    const { previousSlug } = change;
    const moved = previousSlug && previousSlug !== post?.slug && !change.redirectsToPost.includes(previousSlug);
    return { render, remove: moved ? [postKey(ctx.blog.slug, previousSlug)] : [] };
  },
  render: (site, page) => renderPostPage(site.ctx, page.post, postNeighbours(site.posts, page.index)),
  pageId: (page) => page.post.id,
  renderPost: renderPostPage,
};

/** The objects at old slugs and alias paths, which redirect to the post's current address. */
export const redirects: PageType<SiteRedirect> = {
  name: 'redirects',
  all: (site) => {
    // A live post always wins over an old address that a later post took.
    const liveSlugs = new Set(site.posts.map((post) => post.slug));
    return site.redirects.filter((redirect) => !liveSlugs.has(redirect.from) && liveSlugs.has(redirect.to));
  },
  affectedBy: (site, change) => {
    const { post } = change;
    const render = post ? change.redirectsToPost.map((from) => ({ from, to: post.slug })) : [];
    // An address the post still redirects from (it was re-added meanwhile) stays.
    const remove = (change.removedRedirects ?? []).filter((from) => !(post && change.redirectsToPost.includes(from)));
    return { render, remove: remove.map((from) => redirectKey(site.ctx.blog.slug, from)) };
  },
  render: (site, redirect) => renderRedirect(site.ctx, redirect.from, redirect.to),
  pageId: (redirect) => redirect.from,
};
