/**
 * The `site_delete` job: removes a deleted blog's routing entry, search index and objects, purges
 * all of it at the edge, then frees its slug (BlogsService.delete reserved it): only then may a
 * new blog take the slug, so it can never inherit anything.
 */
import type { BlogsRepo } from '../../db/blogsRepo.js';
import type { PublishJob } from '../../db/jobsRepo.js';
import type { ObjectHashesRepo } from '../../db/objectHashesRepo.js';
import type { Logger } from '../../lib/logger.js';
import type { SiteStore } from '../../storage/siteStore.js';
import type { ListingCache } from '../listing/listingCache.js';
import type { CdnSync } from '../stages/cdnSync.js';
import type { DomainEntries } from '../stages/domainEntries.js';
import type { SearchIndexes } from '../stages/searchIndexes.js';
import { recordedHashes } from '../stages/writeSite.js';

export interface SiteDeletionDeps {
  blogs: Pick<BlogsRepo, 'findBySlug' | 'releaseSlug'>;
  store: Pick<SiteStore, 'list' | 'deleteMany'>;
  hashes: ObjectHashesRepo;
  listings: Pick<ListingCache, 'forget'>;
  domains: Pick<DomainEntries, 'release'>;
  indexes: Pick<SearchIndexes, 'drop' | 'dropDiscovery'>;
  purge: CdnSync;
  logger: Logger;
}

export class SiteDeletion {
  constructor(private readonly deps: SiteDeletionDeps) {}

  async run(job: PublishJob): Promise<void> {
    const { store, hashes, blogs, indexes, domains, purge, logger } = this.deps;
    if (job.payload.hostname) await domains.release(job.payload.hostname, job.blogSlug);
    await this.deps.listings.forget(job.blogId);
    // Only blogs deleted before slugs were reserved can have a successor already; its objects
    // are not ours to delete.
    const successor = await blogs.findBySlug(job.blogSlug);
    if (successor && successor.id !== job.blogId) {
      logger.warn({ blog: job.blogSlug }, 'slug reused before the old site was deleted; leaving objects to the new blog');
      await hashes.clear(job.blogId);
      await blogs.releaseSlug(job.blogSlug, job.blogId);
      return;
    }
    const prefix = `${job.blogSlug}/`;
    await indexes.drop(job.blogSlug);
    await indexes.dropDiscovery(job.blogId);
    // load: what the edge may still hold, the objects listed now and, on a retry after they were
    // deleted, every object the blog was known to have (its hashes stay until the purge is done)
    const listed = await store.list(prefix);
    const known = [...new Set([...listed, ...(await recordedHashes(hashes, job.blogId)).keys()])];
    // write
    await store.deleteMany(listed);
    // A writer that was still busy (a command-line rebuild) may have added objects meanwhile:
    // the slug stays reserved and the job is retried until the prefix stays empty.
    const left = await store.list(prefix);
    if (left.length > 0) throw new Error(`${left.length} objects appeared under ${prefix} while the blog was being deleted; retrying`);
    // purge: readers of the edge stop seeing it before a new blog may take the slug
    await purge.everything({ slug: job.blogSlug }, known, job.payload.hostname ? [job.payload.hostname] : []);
    await hashes.clear(job.blogId);
    await blogs.releaseSlug(job.blogSlug, job.blogId);
  }
}
