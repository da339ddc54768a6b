/**
 * The `post` and `post_removed` jobs: one post published, edited or taken down. Load what the
 * change touches, render those objects, write them, purge them at the edge, then bring both
 * search indexes in step (and purge the static index's files). A job renders the database's
 * current state, so running it twice, late, or after a crash gives the same store
 * (docs/publishing.md).
 */
import type { BlogsRepo } from '../../db/blogsRepo.js';
import type { PublishJob } from '../../db/jobsRepo.js';
import type { ObjectHashesRepo } from '../../db/objectHashesRepo.js';
import type { SiteRepo } from '../../db/siteRepo.js';
import type { SiteStore } from '../../storage/siteStore.js';
import { renderPostChange } from '../postChange.js';
import type { SitePost } from '../../domain/siteTypes.js';
import type { CdnSync } from '../stages/cdnSync.js';
import { LANGUAGE_TIPPED, type PostChangeLoader } from '../stages/loadPostChange.js';
import { livePost } from '../stages/loadSite.js';
import type { SearchIndexes } from '../stages/searchIndexes.js';
import { writeSite } from '../stages/writeSite.js';
import type { CardDrawing } from '../cards/cardSpec.js';
import type { BlogWithDomain } from '../../domain/blog.js';

export interface PostChangePipelineDeps {
  blogs: Pick<BlogsRepo, 'findById'>;
  site: Pick<SiteRepo, 'post'>;
  load: Pick<PostChangeLoader, 'load'>;
  store: SiteStore;
  hashes: ObjectHashesRepo;
  purge: CdnSync;
  indexes: Pick<SearchIndexes, 'postChanged'>;
  /** Draws the social cards the change's pages name, after them (pipelines/drawPostCards.ts). */
  drawCardsSoon: (blog: BlogWithDomain, drawings: readonly CardDrawing[]) => void;
  /** Renders and writes the whole blog (pipelines/rebuildSite.ts), for changes that move it all. */
  rebuild: (blog: BlogWithDomain) => Promise<unknown>;
}

export class PostChangePipeline {
  /** Blogs that ran a post job in this process. */
  private readonly published = new Set<string>();

  constructor(private readonly deps: PostChangePipelineDeps) {}

  /** Whether the blog ran a post job in this process (its next publish has nothing left to load). */
  publishedSinceStart(blogId: string): boolean {
    return this.published.has(blogId);
  }

  async run(job: PublishJob): Promise<void> {
    const { blogs, site, load, store, hashes, purge } = this.deps;
    const blog = blogs.findById(job.blogId);
    if (!blog) return; // deleted since: its site_delete job removes everything
    const postId = job.payload.postId;
    if (!postId) throw new Error(`job ${job.id} has no postId`);
    this.published.add(blog.id);
    if (job.payload.wasLive && job.payload.previousPublishedAt) {
      // A live post given another date (published_at) moves in every list, month and feed: the
      // whole blog is rendered again, which also deletes the objects the change left stale.
      const live = livePost(site, postId);
      if (live && live.publishedAt !== job.payload.previousPublishedAt) return this.wholeBlog(blog, postId, job.attempts, live);
    }

    // load
    const loaded = await load.load(blog, postId, job.payload);
    // The titles tipped the blog's language: every page's <html lang> and labels change.
    if (loaded === LANGUAGE_TIPPED) return this.wholeBlog(blog, postId, job.attempts);
    // render
    const { objects, deletions, drawings } = renderPostChange(loaded.input);
    // write
    const written = await writeSite(store, hashes, blog.id, objects, deletions);
    // purge: on a retry, everything the job rendered, since the first attempt may have written it unpurged
    const allKeys = [...objects.map((o) => o.key), ...deletions];
    await purge.changed(blog, { attempt: job.attempts, changedKeys: written.changedKeys, allKeys });
    // The cards the pages name and the store lacks follow the pages (drawPostCards.ts says why).
    if (drawings.some((card) => hashes.get(blog.id, card.key) === null)) this.deps.drawCardsSoon(blog, drawings);
    // index
    await this.index(blog, postId, job.attempts, loaded.live);
  }

  /** The whole blog rendered again, then the post indexed as it is now (or `live`, when already read). */
  private async wholeBlog(blog: BlogWithDomain, postId: string, attempt: number, live?: SitePost): Promise<void> {
    await this.deps.rebuild(blog);
    await this.index(blog, postId, attempt, live ?? livePost(this.deps.site, postId));
  }

  private async index(blog: BlogWithDomain, postId: string, attempt: number, live: SitePost | null): Promise<void> {
    const changedKeys = await this.deps.indexes.postChanged(blog, postId, live);
    await this.deps.purge.changed(blog, { attempt, changedKeys, allKeys: changedKeys });
  }
}
