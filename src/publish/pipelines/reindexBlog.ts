/**
 * Rebuilds a blog's two search indexes from the database (`folio search reindex`, and `site`
 * jobs that ask for it): both indexes afresh, the static index's files purged, then the posts
 * changed meanwhile applied again.
 */
import type { SiteRepo } from '../../db/siteRepo.js';
import type { RenderSlots } from '../parallel/renderSlots.js';
import type { SitePost } from '../../domain/siteTypes.js';
import type { CdnSync } from '../stages/cdnSync.js';
import { postsChangedSince } from '../stages/loadSite.js';
import type { SearchIndexes } from '../stages/searchIndexes.js';
import type { BlogWithDomain } from '../../domain/blog.js';

export interface ReindexDeps {
  site: Pick<SiteRepo, 'latestChange' | 'changesSince' | 'publishedByIds'>;
  indexes: Pick<SearchIndexes, 'rebuild' | 'postChanged' | 'holdingChanges'>;
  purge: CdnSync;
  /**
   * Shared with full renders: after an upgrade that changed the indexed text, every blog's site
   * job reindexes once its render is done, and each holds its posts' text meanwhile.
   */
  slots: RenderSlots;
  /**
   * Lets go of the blog's listing until its next use, which restores it (ListingCache.setAside):
   * a reindex reads none, and a big blog's (about 100 MB at 100,000 posts) would otherwise be held
   * through the reindex's peak after a full render loaded it.
   */
  setAsideListing: (blogId: string) => Promise<void>;
}

export class BlogReindex {
  constructor(private readonly deps: ReindexDeps) {}

  /** Returns how many posts the indexes hold. */
  reindex(blog: BlogWithDomain): Promise<number> {
    return this.deps.slots.run(() =>
      // The blog's publishes let in meanwhile (beside its `site` job) are indexed at the end.
      this.deps.indexes.holdingChanges(blog, async () => {
        await this.deps.setAsideListing(blog.id);
        // Changes committed from here on are applied again once the new indexes are in place.
        const since = await this.deps.site.latestChange();
        const { count, changedKeys } = await this.deps.indexes.rebuild(blog);
        await this.deps.purge.changed(blog, { attempt: 0, changedKeys, allKeys: changedKeys });
        await this.catchUp(blog, since);
        return count;
      }),
    );
  }

  /**
   * Posts published, edited or taken down while the indexes were rebuilt. Another process (the
   * server, beside `folio search reindex`) wrote them into the indexes the rebuild then replaced,
   * where they would be lost. Each is applied again as the database holds it now (the
   * post_changes log names them); applying a post twice is harmless. In the server, the blog's
   * own jobs run beside its `site` job's reindex, their index changes held until this is done.
   */
  private async catchUp(blog: BlogWithDomain, since: number): Promise<void> {
    for (const { postId, live } of await postsChangedSince(this.deps.site, blog, since)) await this.index(blog, postId, live);
  }

  private async index(blog: BlogWithDomain, postId: string, live: SitePost | null): Promise<void> {
    const changedKeys = await this.deps.indexes.postChanged(blog, postId, live);
    await this.deps.purge.changed(blog, { attempt: 0, changedKeys, allKeys: changedKeys });
  }
}
