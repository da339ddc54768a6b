import type { BlogsRepo } from '../db/blogsRepo.js';

/** A blog's slug, NO_BLOG for a blog address that no blog holds (now), or null for other hosts. */
export type HostBlog = string | typeof NO_BLOG | null;
export const NO_BLOG = Symbol('no blog');

/**
 * Which blog a request's host serves, for the site server: `<slug>.<serviceHost>` while a blog
 * holds that slug, or a custom domain while it is active. One indexed lookup per request, read
 * from the database so that deleting a blog or removing a domain takes effect when it commits.
 * Subdomains of the service domain are blog addresses even while no blog holds them: they
 * answer a plain 404, never the API.
 */
export function blogForHost(blogs: BlogsRepo, serviceHost: string): (host: string) => Promise<HostBlog> {
  const suffix = `.${serviceHost}`;
  return async (host) => {
    if (host.endsWith(suffix)) {
      const label = host.slice(0, -suffix.length);
      if (label.includes('.')) return null;
      return (await blogs.hasSlug(label)) ? label : NO_BLOG;
    }
    if (host === serviceHost) return null;
    // Custom domains have two labels or more and never end in digits (domains.ts refuses IP
    // addresses), so the API's own 127.0.0.1 or [::1] never costs a lookup.
    if (!host.includes('.') || /\.\d+$/.test(host)) return null;
    return (await blogs.findByActiveDomain(host))?.slug ?? null;
  };
}
