/** Database rows → the plain data the renderer works on. */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { BlogWithDomain } from '../db/blogsRepo.js';
import type { Post } from '../db/postsRepo.js';
import type { PublishedSummary, SiteRepo } from '../db/siteRepo.js';
import { allowedTheme, type Plan } from '../services/plans.js';
import type { SiteUrls } from '../services/siteUrls.js';
import type { SiteRedirect } from './render/renderSite.js';
import type { SiteBlog, SitePost } from './render/siteTypes.js';

/**
 * `plan` is the owning account's current plan: pages carry only the theme keys it includes, so
 * a downgrade takes paid theme fields off the site while the stored theme_config keeps them.
 */
export function toSiteBlog(blog: BlogWithDomain, plan: Plan, urls: SiteUrls): SiteBlog {
  return {
    id: blog.id,
    slug: blog.slug,
    name: blog.name,
    description: blog.description,
    baseUrl: urls.origin(blog),
    themeConfig: allowedTheme(plan, blog.themeConfig),
    updatedAt: blog.updatedAt,
  };
}

export function toSitePost(post: Post): SitePost {
  if (!post.publishedAt) throw new Error(`post ${post.id} is not published`);
  return {
    id: post.id,
    slug: post.slug,
    title: post.title,
    contentHtml: post.contentHtml,
    contentMd: post.contentMd,
    metaDescription: post.metaDescription,
    ogImageUrl: post.ogImageUrl,
    tags: post.tags,
    publishedAt: post.publishedAt,
    createdAt: post.createdAt,
    updatedAt: post.updatedAt,
    textCounts: post.textCounts ?? null,
  };
}

/** Everything a full render of the blog needs. */
export interface SiteSnapshot {
  blog: SiteBlog;
  posts: SitePost[];
  redirects: SiteRedirect[];
}

/**
 * Rows are read a page at a time, and the event loop gets a turn between pages: reading every
 * post of a 10,000-post blog at once held it for about a second. Posts published while the
 * pages are read may be missed or included; their own publish jobs render them either way.
 */
const SNAPSHOT_PAGE_ROWS = 200;

export async function loadSnapshot(site: SiteRepo, blog: BlogWithDomain, plan: Plan, urls: SiteUrls): Promise<SiteSnapshot> {
  const posts: SitePost[] = [];
  for (let after: SitePost | null = null; ; ) {
    const page: Post[] = site.publishedForPages(blog.id, after, SNAPSHOT_PAGE_ROWS);
    for (const post of page) posts.push(toSitePost(post));
    if (page.length < SNAPSHOT_PAGE_ROWS) break;
    after = posts[posts.length - 1]!;
    await yieldToLoop();
  }
  return { blog: toSiteBlog(blog, plan, urls), posts, redirects: site.redirects(blog.id) };
}

export type { PublishedSummary };
