/**
 * The purge stage of publish jobs (docs/production.md, "CDN"), and the only one that calls the
 * CdnPurger: after the store accepted a job's writes (pages, or the static search index's
 * files), the CDN is told what changed, under every origin the blog is served on. A purge that fails
 * throws, so the job stays pending and runs again; on such a retry the store's hashes already
 * match and nothing counts as changed, so a retry purges everything the job rendered.
 */
import type { CdnPurger } from '../../cdn/cdnPurger.js';
import { allPublicPathsOf, publicPathsOf } from '../publicPaths.js';
import type { SiteUrls } from '../../domain/siteUrls.js';

interface BlogAddress {
  slug: string;
  customDomain?: string | null;
  domainActive?: boolean;
}

export class CdnSync {
  constructor(private readonly deps: { cdn: CdnPurger; urls: SiteUrls }) {}

  /**
   * A post change: the keys the store wrote or deleted, or on a retry (`attempt` > 0) every key
   * the job rendered or deleted, since the first attempt may have changed them unpurged.
   */
  async changed(blog: BlogAddress, change: { attempt: number; changedKeys: readonly string[]; allKeys: readonly string[] }): Promise<void> {
    const keys = change.attempt > 0 ? change.allKeys : change.changedKeys;
    const paths = publicPathsOf(blog.slug, keys);
    if (paths.length > 0) await this.deps.cdn.purgePaths(this.deps.urls.origins(blog), paths);
  }

  /**
   * A whole-blog change (theme, name, plan, domain, URLs, rebuild, delete): everything of its
   * origins. `keys`: every object the blog has or had, for caches that purge path by path.
   */
  async everything(blog: BlogAddress, keys: readonly string[], formerHostnames: readonly string[] = []): Promise<void> {
    await this.deps.cdn.purgeOrigins(this.deps.urls.origins(blog, formerHostnames), await allPublicPathsOf(blog.slug, keys));
  }
}
