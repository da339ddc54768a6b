import { createHash, randomUUID } from 'node:crypto';
import type { BlogWithDomain } from '../domain/blog.js';
import type { Media, MediaRepo } from '../db/mediaRepo.js';
import type { SqlClient } from '../db/sql/sqlClient.js';
import type { JobsRepo } from '../db/jobsRepo.js';
import { isoNow, type Clock } from '../lib/clock.js';
import { BadRequestError, ConflictError, NotFoundError, ServiceUnavailableError, UnsupportedMediaTypeError } from '../domain/errors.js';
import type { EncodedImage, ImagePipeline } from '../media/imagePipeline.js';
import { formatOfContentType, MEDIA_DIR, mediaNames } from '../media/mediaNames.js';
import { CACHE_CONTROL_ASSET } from '../domain/cacheHeaders.js';
import type { SiteStore } from '../storage/siteStore.js';
import type { MediaRemoval } from './mediaRemoval.js';
import type { StoreWatch } from './storeWatch.js';
import type { PublishQueue } from '../domain/publishQueue.js';

export interface MediaDeps {
  sql: SqlClient;
  media: MediaRepo;
  store: SiteStore;
  pipeline: ImagePipeline;
  /** Records the removal of a deleted image's objects (a `media_delete` job). */
  jobs: Pick<JobsRepo, 'insert' | 'in'>;
  runner: Pick<PublishQueue, 'runNow'>;
  removal: Pick<MediaRemoval, 'exclusive'>;
  /** Whether the data dir now publishes to another store than this process's (storeWatch.ts). */
  storeWatch: Pick<StoreWatch, 'check'>;
  clock: Clock;
}

const ACCEPTED = 'image/png, image/jpeg, image/webp, image/gif or image/avif';

/** Why an upload's Content-Type is refused, with what to send instead. */
function refusalOf(contentType: string): string {
  if (contentType.includes('svg')) return 'SVG images are not accepted: they can carry script';
  // What `curl -F` and a browser's FormData send: the commonest first try.
  if (contentType.startsWith('multipart/')) {
    return `send the image file itself as the request body with its own Content-Type (${ACCEPTED}), not as multipart form data: curl --data-binary @photo.png -H 'Content-Type: image/png'`;
  }
  return `send the image with Content-Type ${ACCEPTED}`;
}

/** How long a client is asked to wait: an operator has to restart the server first. */
const STORE_MOVED_RETRY_SECONDS = 60;

/**
 * Images uploaded into a blog. The objects are written before the row, so a row always names
 * objects that exist; a crash in between leaves only unnamed objects that the same upload would
 * write again byte for byte (content-addressed names).
 */
export class MediaService {
  constructor(private readonly deps: MediaDeps) {}

  /** `created` is false when the blog already had these exact bytes: that image is returned. */
  async upload(blog: BlogWithDomain, bytes: Buffer, contentType: string): Promise<{ media: Media; created: boolean }> {
    const format = formatOfContentType(contentType);
    if (!format) throw new UnsupportedMediaTypeError(refusalOf(contentType.toLowerCase()));
    const { media, pipeline } = this.deps;
    const hash = createHash('sha256').update(bytes).digest('hex').slice(0, 20);
    const existing = await media.findByHash(blog.id, hash);
    if (existing && existing.format !== format)
      throw new BadRequestError(`Content-Type says ${contentType} but the body is an ${existing.format.toUpperCase()} image`);
    if (existing) return { media: existing, created: false };
    // A store moved under this server: the image would land where nobody reads any more, and
    // its row would name objects the blog's pages cannot show. Refused, as publish jobs wait.
    const moved = await this.deps.storeWatch.check();
    if (moved !== null) throw new ServiceUnavailableError(`the image was not stored: ${moved}`, { retryAfter: STORE_MOVED_RETRY_SECONDS });

    // Fair between accounts: one account's uploads never hold another's up (imagePipeline.ts).
    const encoded = await pipeline.encode(bytes, format, hash, blog.accountId);
    // Not while a removal of the same bytes' objects (deleted earlier, still due) is running.
    return this.deps.removal.exclusive(blog.id, hash, () => this.storeObjects(blog, hash, bytes, encoded));
  }

  /** Writes the objects, then the row that names them. */
  private async storeObjects(blog: BlogWithDomain, hash: string, bytes: Buffer, encoded: EncodedImage): Promise<{ media: Media; created: boolean }> {
    const { sql, store, clock } = this.deps;
    for (const object of encoded.objects) {
      await store.put(`${blog.slug}/${MEDIA_DIR}/${object.name}`, object.body, { contentType: object.contentType, cacheControl: CACHE_CONTROL_ASSET });
    }
    return sql.transaction(async (tx) => {
      const media = this.deps.media.in(tx);
      // The same bytes sent twice at once: the second finds the first's row.
      const raced = await media.findByHash(blog.id, hash);
      if (raced) return { media: raced, created: false };
      const row: Media = {
        id: randomUUID(),
        blogId: blog.id,
        ...encoded.image,
        bytes: bytes.length,
        storedBytes: encoded.objects.reduce((sum, o) => sum + o.body.length, 0),
        createdAt: isoNow(clock),
      };
      await media.insert(row);
      return { media: row, created: true };
    });
  }

  /** Whether the image thread runs (tests of a server at rest). */
  get imageThreadRunning(): boolean {
    return this.deps.pipeline.threadRunning;
  }

  /** Stops the image thread if no image is in it (a server at rest, warmup/rest.ts). */
  retireIdle(): boolean {
    return this.deps.pipeline.retireIdle();
  }

  close(): Promise<void> {
    return this.deps.pipeline.close();
  }

  /** Images waiting for and in the image pipeline, for tests and metrics. */
  queueStats(): { waiting: number; running: number } {
    return this.deps.pipeline.stats();
  }

  list(blog: BlogWithDomain, page: number, perPage: number): Promise<{ media: Media[]; total: number }> {
    return this.deps.media.list(blog.id, page, perPage);
  }

  find(blog: BlogWithDomain, id: string): Promise<Media | null> {
    return this.deps.media.find(blog.id, id);
  }

  get(blog: BlogWithDomain, id: string): Promise<Media> {
    return found(this.deps.media, blog, id);
  }

  /**
   * Refused while a published or scheduled post names the image (drafts may go on naming it).
   * The row goes at once; its objects are removed by a durable job recorded with it, run now and
   * retried until done, so an image deleted while the store is down does not stay public.
   */
  async delete(blog: BlogWithDomain, id: string): Promise<void> {
    const { sql, runner, clock } = this.deps;
    const jobId = await sql.transaction(async (tx) => {
      const media = this.deps.media.in(tx);
      const row = await found(media, blog, id);
      const user = await media.liveUser(blog.id, row.hash);
      if (user) throw new ConflictError(`this image is used by the post "${user}", which is published or scheduled; remove it from that post first`);
      await media.delete(row.id);
      return this.deps.jobs.in(tx).insert({
        blogId: blog.id,
        blogSlug: blog.slug,
        kind: 'media_delete',
        payload: { mediaHash: row.hash, mediaNames: mediaNames(row) },
        now: isoNow(clock),
      });
    });
    await runner.runNow([jobId]);
  }
}

/** The blog's image `id`, through `repo` (bound to a transaction or not); 404 when there is none. */
async function found(repo: Pick<MediaRepo, 'find'>, blog: BlogWithDomain, id: string): Promise<Media> {
  const media = await repo.find(blog.id, id);
  if (!media) throw new NotFoundError(`media "${id}" not found`);
  return media;
}
