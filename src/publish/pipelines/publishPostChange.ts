/**
 * The `post` and `post_removed` jobs: one post published, edited or taken down, or a batch of such
 * changes to one blog folded together (docs/publishing.md#coalesced-publishing). Load what the
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
import { renderPostChanges } from '../postChange.js';
import { viewOfChange } from '../pages/siteView.js';
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
  load: Pick<PostChangeLoader, 'loadBatch'>;
  store: SiteStore;
  hashes: ObjectHashesRepo;
  purge: CdnSync;
  indexes: Pick<SearchIndexes, 'postsChanged'>;
  /** How many of the blog's post jobs are pending: changes the store may not show yet. */
  unpublishedChanges: (blogId: string) => Promise<number>;
  /** Draws the social cards the change's pages name, after them (pipelines/drawPostCards.ts). */
  drawCardsSoon: (blog: BlogWithDomain, drawings: readonly CardDrawing[]) => void;
  /** Renders and writes the whole blog (pipelines/rebuildSite.ts), for changes that move it all. */
  rebuild: (blog: BlogWithDomain) => Promise<unknown>;
}

export class PostChangePipeline {
  /** Blogs that ran a post job in this process. */
  private readonly published = new Set<string>();
  /**
   * Blogs whose language a batch run beside their full render tipped, and left for later: the
   * listing reports the tip to one read only, so the batch's own turn must know it from here.
   */
  private readonly tipped = new Set<string>();

  constructor(private readonly deps: PostChangePipelineDeps) {}

  /** Whether the blog ran a post job in this process (its next publish has nothing left to load). */
  publishedSinceStart(blogId: string): boolean {
    return this.published.has(blogId);
  }

  /** One job: a batch of one, today's path of a quiet blog's publish. */
  run(job: PublishJob): Promise<void> {
    return this.runBatch([job]);
  }

  /**
   * Consecutive post jobs of one blog (jobs/jobRunner.ts folds them): each changed post's pages,
   * and the pages they share rendered once from one read of the blog, written, purged and
   * indexed once. Throwing leaves every job of the batch pending; a retry renders the database's
   * state again, so it converges whatever the batch wrote before it failed.
   */
  async runBatch(jobs: readonly PublishJob[]): Promise<void> {
    await this.change(jobs, false);
  }

  /**
   * runBatch between two chunks of the blog's full render (jobs/jobRunner.ts runBeside): returns
   * the keys the batch rendered, deleted or will draw, which the render then leaves as they are,
   * or null, having done nothing, when the batch would render the whole blog (a new date, the
   * language tipped): that waits for its own turn, after the render.
   */
  runBeside(jobs: readonly PublishJob[]): Promise<string[] | null> {
    return this.change(jobs, true);
  }

  private async change(jobs: readonly PublishJob[], beside: boolean): Promise<string[] | null> {
    const { blogs, site, load, store, hashes, purge } = this.deps;
    const first = jobs[0];
    if (!first) return [];
    const blog = await blogs.findById(first.blogId);
    if (!blog) return []; // deleted since: its site_delete job removes everything
    const changes = jobs.map((job) => {
      if (!job.payload.postId) throw new Error(`job ${job.id} has no postId`);
      return { postId: job.payload.postId, payload: job.payload };
    });
    const postIds = [...new Set(changes.map((change) => change.postId))];
    // On a retry, everything is purged, since the first attempt may have written it unpurged.
    const attempt = Math.max(...jobs.map((job) => job.attempts));
    // A live post given another date (published_at) moves in every list, month and feed: the
    // whole blog is rendered again, which also deletes the objects the change left stale.
    let redated = false;
    for (const { postId, payload } of changes) {
      if (!payload.wasLive || !payload.previousPublishedAt) continue;
      const live = await livePost(site, postId);
      redated = live !== null && live.publishedAt !== payload.previousPublishedAt;
      if (redated) break;
    }
    if (redated && beside) return null;
    this.published.add(blog.id);
    if (redated) return this.wholeBlog(blog, postIds, attempt);

    // load
    const loaded = await load.loadBatch(blog, changes, () => this.deps.unpublishedChanges(blog.id));
    // The titles tipped the blog's language: every page's <html lang> and labels change.
    if (loaded === LANGUAGE_TIPPED && beside) {
      this.tipped.add(blog.id);
      return null;
    }
    if (loaded === LANGUAGE_TIPPED || this.tipped.delete(blog.id)) return this.wholeBlog(blog, postIds, attempt);
    // render
    const inputs = loaded.changes.map((change) => change.input);
    const { objects, deletions, drawings } = renderPostChanges(viewOfChange(inputs[0]!), inputs);
    // write
    const written = await writeSite(store, hashes, blog.id, objects, deletions);
    // purge
    const allKeys = [...objects.map((o) => o.key), ...deletions];
    await purge.changed(blog, { attempt, changedKeys: written.changedKeys, allKeys });
    // The cards the pages name and the store lacks follow the pages (drawPostCards.ts says why).
    if (await anyMissing(hashes, blog.id, drawings)) this.deps.drawCardsSoon(blog, drawings);
    // index: each post once, as it is now (the last load of a post named twice wins)
    const live = new Map(loaded.changes.map((change) => [change.input.postId, change.live]));
    await this.index(
      blog,
      [...live].map(([postId, post]) => ({ postId, live: post })),
      attempt,
    );
    return [...allKeys, ...drawings.map((card) => card.key)];
  }

  /** The whole blog rendered again, then the posts indexed as they are now. */
  private async wholeBlog(blog: BlogWithDomain, postIds: readonly string[], attempt: number): Promise<string[]> {
    await this.deps.rebuild(blog);
    const posts: { postId: string; live: SitePost | null }[] = [];
    for (const postId of postIds) posts.push({ postId, live: await livePost(this.deps.site, postId) });
    await this.index(blog, posts, attempt);
    return [];
  }

  private async index(blog: BlogWithDomain, posts: readonly { postId: string; live: SitePost | null }[], attempt: number): Promise<void> {
    const changedKeys = await this.deps.indexes.postsChanged(blog, posts);
    await this.deps.purge.changed(blog, { attempt, changedKeys, allKeys: changedKeys });
  }
}

/** Whether the store lacks any of the cards (no hash recorded for it). */
async function anyMissing(hashes: Pick<ObjectHashesRepo, 'get'>, blogId: string, drawings: readonly { key: string }[]): Promise<boolean> {
  for (const card of drawings) if ((await hashes.get(blogId, card.key)) === null) return true;
  return false;
}
