import type { BlogWithDomain } from '../../domain/blog.js';
import type { SiteUrls } from '../../domain/siteUrls.js';

/** The blog JSON of the API's answers, as the OpenAPI document describes it. */

export function presentBlogCreated(blog: BlogWithDomain, urls: SiteUrls) {
  return { id: blog.id, slug: blog.slug, name: blog.name, url: urls.blog(blog), discoverable: blog.discoverable, created_at: blog.createdAt };
}

export function presentBlogListEntry(blog: BlogWithDomain) {
  return {
    id: blog.id,
    slug: blog.slug,
    name: blog.name,
    description: blog.description,
    custom_domain: blog.customDomain,
    discoverable: blog.discoverable,
    created_at: blog.createdAt,
    updated_at: blog.updatedAt,
  };
}

export function presentBlogUpdated(blog: BlogWithDomain) {
  return {
    id: blog.id,
    slug: blog.slug,
    name: blog.name,
    description: blog.description,
    custom_domain: blog.customDomain,
    theme_config: blog.themeConfig,
    discoverable: blog.discoverable,
    updated_at: blog.updatedAt,
  };
}

/** GET /blogs/:id: every field of the blog. */
export function presentBlog(blog: BlogWithDomain, urls: SiteUrls) {
  return {
    id: blog.id,
    slug: blog.slug,
    name: blog.name,
    description: blog.description,
    url: urls.blog(blog),
    custom_domain: blog.customDomain,
    theme_config: blog.themeConfig,
    discoverable: blog.discoverable,
    created_at: blog.createdAt,
    updated_at: blog.updatedAt,
  };
}
