/** Database rows → the plain data the renderer works on. */
import type { BlogWithDomain } from '../domain/blog.js';
import type { Post } from '../domain/post.js';
import type { PublishedSummary } from '../db/siteRepo.js';
import { allowedTheme, type Plan } from '../domain/plans.js';
import type { SiteUrls } from '../domain/siteUrls.js';
import type { SiteBlog, SitePost } from '../domain/siteTypes.js';

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

export type { PublishedSummary };
