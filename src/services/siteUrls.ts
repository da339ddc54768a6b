import type { Config } from '../config.js';

/** Public addresses of blogs and posts (api.md §1): the custom domain once it is active. */
export class SiteUrls {
  constructor(private readonly config: Pick<Config, 'publicScheme' | 'serviceDomain'>) {}

  /** Origin of a blog, without a trailing slash. */
  origin(blog: { slug: string; customDomain?: string | null; domainActive?: boolean }): string {
    if (blog.customDomain && blog.domainActive) return `${this.config.publicScheme}://${blog.customDomain}`;
    return `${this.config.publicScheme}://${blog.slug}.${this.config.serviceDomain}`;
  }

  blog(blog: { slug: string; customDomain?: string | null; domainActive?: boolean }): string {
    return `${this.origin(blog)}/`;
  }

  post(blog: { slug: string; customDomain?: string | null; domainActive?: boolean }, postSlug: string): string {
    return `${this.origin(blog)}/${encodeURIComponent(postSlug)}`;
  }
}
