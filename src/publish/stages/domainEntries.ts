/**
 * The routing entries under `_domains/<hostname>` (text: the blog slug) that the site server, or
 * a CDN worker, reads to map a custom host to its blog.
 */
import type { BlogsRepo } from '../../db/blogsRepo.js';
import type { SiteStore } from '../../storage/siteStore.js';
import type { BlogWithDomain } from '../../domain/blog.js';

export class DomainEntries {
  constructor(private readonly deps: { store: SiteStore; blogs: Pick<BlogsRepo, 'findByActiveDomain'> }) {}

  /** Writes the blog's entry, if it has an active custom domain. */
  async write(blog: BlogWithDomain): Promise<void> {
    if (!blog.customDomain || !blog.domainActive) return;
    await this.deps.store.put(`_domains/${blog.customDomain}`, blog.slug, { contentType: 'text/plain; charset=utf-8', cacheControl: 'no-cache' });
  }

  /**
   * Removes this blog's routing entry for a hostname it no longer has. By the time this job runs
   * another blog may have verified the hostname (pending registrations of one hostname compete),
   * so an entry naming another blog is left alone; and as that blog's job may write its entry
   * between our read and our delete, the database's holder, if any, is written back afterwards.
   */
  async release(hostname: string, blogSlug: string): Promise<void> {
    const key = `_domains/${hostname}`;
    const entry = await this.deps.store.get(key);
    if (entry && entry.body.toString('utf8').trim() !== blogSlug) return;
    if (entry) await this.deps.store.delete(key);
    const holder = await this.deps.blogs.findByActiveDomain(hostname);
    if (holder) await this.write(holder);
  }
}
