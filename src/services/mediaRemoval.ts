/**
 * Removing a deleted image's objects from the store and the CDN: a durable `media_delete` job,
 * recorded in the transaction that deletes the row and retried until it succeeds, like a page
 * job. Done in the request alone, an image deleted while the store was down stayed public for
 * good (the row was gone, so nothing ever tried again).
 */
import type { CdnPurger } from '../cdn/cdnPurger.js';
import { KeyedQueue } from '../lib/keyedQueue.js';
import type { BlogsRepo } from '../db/blogsRepo.js';
import type { PublishJob } from '../db/jobsRepo.js';
import type { MediaRepo } from '../db/mediaRepo.js';
import { MEDIA_DIR } from '../media/mediaNames.js';
import type { SiteStore } from '../storage/siteStore.js';
import type { SiteUrls } from '../domain/siteUrls.js';

export interface MediaRemovalDeps {
  media: Pick<MediaRepo, 'findByHash'>;
  blogs: Pick<BlogsRepo, 'findById'>;
  store: SiteStore;
  cdn: CdnPurger;
  urls: SiteUrls;
}

export class MediaRemoval {
  /** The work on each image (`<blog id>:<hash>`): uploads of its bytes and removals of its objects. */
  private readonly images = new KeyedQueue();

  constructor(private readonly deps: MediaRemovalDeps) {}

  /**
   * Runs `work` after any upload or removal of the same image in this process has finished.
   * Names are content-addressed: the same bytes uploaded again while the removal of their
   * objects is still due get the same names, and the removal must not take the new upload's
   * objects. Uploads and jobs run in the server process only, so a lock in memory suffices.
   */
  exclusive<T>(blogId: string, hash: string, work: () => Promise<T>): Promise<T> {
    return this.images.run(`${blogId}:${hash}`, work);
  }

  /** The `media_delete` job. Throwing leaves it pending for a retry (JobRunner). */
  readonly handle = async (job: PublishJob): Promise<void> => {
    const { mediaHash: hash, mediaNames: names } = job.payload;
    if (!hash || !names) throw new Error(`job ${job.id} names no image`);
    const blog = await this.deps.blogs.findById(job.blogId);
    // A deleted blog's site_delete job removes everything under its prefix, these objects too.
    if (!blog) return;
    await this.exclusive(blog.id, hash, async () => {
      // Uploaded again since the delete: the objects belong to the new row now.
      if (await this.deps.media.findByHash(blog.id, hash)) return;
      await this.deps.store.deleteMany(names.map((name) => `${blog.slug}/${MEDIA_DIR}/${name}`));
      await this.deps.cdn.purgePaths(
        this.deps.urls.origins(blog),
        names.map((name) => `/${MEDIA_DIR}/${name}`),
      );
    });
  };
}
