import type { BlogsRepo } from '../db/blogsRepo.js';

/**
 * Which blog a request's host serves, for the site server: `<slug>.<serviceHost>` while a blog
 * holds that slug, or a custom domain while it is active. One indexed lookup per request, read
 * from the database so that deleting a blog or removing a domain takes effect when it commits.
 */
export function blogForHost(blogs: BlogsRepo, serviceHost: string): (host: string) => string | null {
  const suffix = `.${serviceHost}`;
  return (host) => {
    if (host.endsWith(suffix)) {
      const label = host.slice(0, -suffix.length);
      return !label.includes('.') && blogs.hasSlug(label) ? label : null;
    }
    if (host === serviceHost) return null;
    return blogs.findByActiveDomain(host)?.slug ?? null;
  };
}
