import type { BlogWithDomain } from '../../domain/blog.js';
import type { Post, PostSummary } from '../../domain/post.js';
import type { SiteUrls } from '../../domain/siteUrls.js';
import { absoluteMediaUrls, fromMediaRefs, mediaRefUrl } from '../../media/mediaRefs.js';

/**
 * The post JSON of the API's answers, as the OpenAPI document describes it. Webhook payloads
 * (src/webhooks/webhookEvents.ts) and search hits (src/http/routes/search.ts) build their own.
 */

export function presentPostCreated(post: Post, blog: BlogWithDomain, urls: SiteUrls) {
  return { id: post.id, slug: post.slug, url: urls.post(blog, post.slug), status: post.status, created_at: post.createdAt };
}

export function presentPostSummary(post: PostSummary) {
  return {
    id: post.id,
    title: post.title,
    slug: post.slug,
    status: post.status,
    tags: post.tags,
    meta_description: post.metaDescription,
    published_at: post.publishedAt,
    created_at: post.createdAt,
    updated_at: post.updatedAt,
  };
}

/** `origin`: the blog's current origin, which the post's own media URLs are answered on. */
export function presentPost(post: Post, origin: string, aliases: readonly string[]) {
  return {
    id: post.id,
    blog_id: post.blogId,
    title: post.title,
    slug: post.slug,
    content_md: fromMediaRefs(post.contentMd, origin),
    content_html: absoluteMediaUrls(post.contentHtml, origin),
    meta_description: post.metaDescription,
    og_image_url: mediaRefUrl(post.ogImageUrl, origin),
    tags: post.tags,
    status: post.status,
    published_at: post.publishedAt,
    scheduled_at: post.scheduledAt,
    aliases,
    created_at: post.createdAt,
    updated_at: post.updatedAt,
  };
}

/** PUT and unpublish answer with the summary fields. */
export const presentPostUpdated = presentPostSummary;

export function presentPostPublished(post: Post, blog: BlogWithDomain, urls: SiteUrls) {
  return { id: post.id, slug: post.slug, url: urls.post(blog, post.slug), status: post.status, published_at: post.publishedAt };
}

export function presentPostScheduled(post: Post) {
  return { slug: post.slug, status: post.status, scheduled_at: post.scheduledAt };
}
