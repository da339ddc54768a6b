/**
 * Streams an account's export document (exportFormat.ts) piece by piece: a page of posts at a
 * time, yielding to the event loop between pages and whenever a page has taken its time slice,
 * so an account with tens of thousands of posts neither sits in memory as one string nor holds
 * other requests while it is read. A page stops at PAGE_CHARS of Markdown, so a page of large
 * posts is no longer than a page of small ones.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { TimeSlice } from '../lib/timeSlice.js';
import type { BlogsRepo } from '../db/blogsRepo.js';
import type { BlogWithDomain } from '../domain/blog.js';
import type { MediaRepo } from '../db/mediaRepo.js';
import type { PostsRepo } from '../db/postsRepo.js';
import type { Post } from '../domain/post.js';
import { isoNow, type Clock } from '../lib/clock.js';
import { CONTENT_TYPES, MEDIA_DIR, originalName, imageOf } from '../media/mediaNames.js';
import { fromMediaRefs, mediaRefUrl } from '../media/mediaRefs.js';
import { EXPORT_FORMAT, EXPORT_VERSION, type ExportedBlog, type ExportedMedia, type ExportedPost } from './exportFormat.js';
import type { SiteUrls } from '../domain/siteUrls.js';

/** Posts read per page, and the Markdown a page stops at (one 1 MB post is still read whole). */
const POSTS_PER_PAGE = 20;
const PAGE_CHARS = 256 * 1024;
/** How long the export works before other requests get a turn. */
const SLICE_MS = 10;
const MEDIA_PER_PAGE = 200;

/** `origin`: the blog's current origin; its own media are exported as absolute URLs there. */
export function exportedPost(post: Post, origin: string, aliases: string[]): ExportedPost {
  return {
    slug: post.slug,
    title: post.title,
    content: fromMediaRefs(post.contentMd, origin),
    tags: post.tags,
    status: post.status,
    meta: { description: post.metaExplicit ? post.metaDescription : null, og_image: mediaRefUrl(post.ogImageUrl, origin) },
    published_at: post.publishedAt,
    scheduled_at: post.scheduledAt,
    created_at: post.createdAt,
    updated_at: post.updatedAt,
    aliases,
  };
}

export class AccountExporter {
  constructor(private readonly deps: { blogs: BlogsRepo; posts: PostsRepo; media: MediaRepo; urls: SiteUrls; clock: Clock }) {}

  /** The document as JSON text, in pieces that concatenate to one valid document. */
  async *stream(accountId: string): AsyncGenerator<string> {
    yield `{"format":${JSON.stringify(EXPORT_FORMAT)},"version":${EXPORT_VERSION},"exported_at":${JSON.stringify(isoNow(this.deps.clock))},"blogs":[`;
    for (const [i, blog] of (await this.deps.blogs.listByAccount(accountId)).entries()) {
      if (i > 0) yield ',';
      yield* this.blog(blog);
    }
    yield ']}\n';
  }

  private async *blog(blog: BlogWithDomain): AsyncGenerator<string> {
    const head: Omit<ExportedBlog, 'posts' | 'media'> = {
      slug: blog.slug,
      name: blog.name,
      description: blog.description,
      theme_config: blog.themeConfig as Record<string, unknown>,
      discoverable: blog.discoverable,
      custom_domain: blog.customDomain,
      created_at: blog.createdAt,
      updated_at: blog.updatedAt,
    };
    yield `${JSON.stringify(head).slice(0, -1)},"posts":[`;
    const origin = this.deps.urls.origin(blog);
    let after = 0;
    let first = true;
    const slice = new TimeSlice(SLICE_MS);
    for (;;) {
      const page = await this.deps.posts.exportPage(blog.id, after, POSTS_PER_PAGE, PAGE_CHARS);
      if (page.posts.length === 0) break;
      for (const post of page.posts) {
        yield `${first ? '' : ','}${JSON.stringify(exportedPost(post, origin, await this.deps.posts.aliasesOf(post.id)))}`;
        first = false;
        if (slice.over) await slice.next();
      }
      after = page.next;
      await slice.next();
    }
    yield '],"media":[';
    first = true;
    for (let page = 1; ; page++) {
      const { media } = await this.deps.media.list(blog.id, page, MEDIA_PER_PAGE);
      for (const m of media) {
        const item: ExportedMedia = {
          id: m.id,
          url: `${origin}/${MEDIA_DIR}/${originalName(imageOf(m))}`,
          width: m.width,
          height: m.height,
          content_type: CONTENT_TYPES[m.format],
          bytes: m.bytes,
          created_at: m.createdAt,
        };
        yield `${first ? '' : ','}${JSON.stringify(item)}`;
        first = false;
      }
      if (media.length < MEDIA_PER_PAGE) break;
      await yieldToLoop();
    }
    yield ']}';
  }
}
