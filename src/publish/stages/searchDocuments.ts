/**
 * Published posts as the search indexes take them (src/search's SearchDocument): the prose and
 * the code text of the stored HTML, made off the event loop for large posts, and the post's
 * address on the blog.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { TimeSlice } from '../../lib/timeSlice.js';
import type { SiteRepo } from '../../db/siteRepo.js';
import type { ContentRenderer } from '../../content/contentRenderer.js';
import type { SearchText } from '../../content/markdown.js';
import type { SearchDocument } from '../../search/searchTypes.js';
import type { SiteUrls } from '../../domain/siteUrls.js';
import type { SitePost } from '../../domain/siteTypes.js';
import type { BlogWithDomain } from '../../domain/blog.js';
import type { Post } from '../../domain/post.js';

/** Rows read at a time when collecting a blog's search documents: 200 posts' HTML read at once held a busy server's event loop about 45 ms at 50,000 posts (40, as a full render reads bodies). */
const READ_PAGE = 40;
/** Ids read at a time when listing a blog's posts for a reindex. */
const ID_PAGE = 5000;
/** How long making documents runs before the event loop gets a turn. */
const SLICE_MS = 20;

export class SearchDocuments {
  constructor(
    private readonly deps: {
      site: Pick<SiteRepo, 'publishedIdsAfter' | 'publishedByIds'>;
      content: Pick<ContentRenderer, 'searchText'>;
      urls: Pick<SiteUrls, 'post'>;
    },
  ) {}

  /** One post, live on the blog. */
  async of(blog: BlogWithDomain, post: SitePost | Post): Promise<SearchDocument> {
    return this.document(blog, post, await this.deps.content.searchText(blog.accountId, post.contentHtml));
  }

  /**
   * Every published post of the blog, oldest first: its ids, then the posts a page of rows at a
   * time with turns of the event loop between them (an open iterator would keep the connection
   * busy for every other request): this runs inside jobs of the server as well as in the CLI.
   */
  async all(blog: BlogWithDomain): Promise<SearchDocument[]> {
    return this.ofIds(blog, await this.ids(blog));
  }

  /** Ids of the blog's published posts, oldest first. */
  async ids(blog: BlogWithDomain): Promise<string[]> {
    const ids: string[] = [];
    let after: { publishedAt: string; id: string } | null = null;
    for (;;) {
      const page = await this.deps.site.publishedIdsAfter(blog.id, after, ID_PAGE);
      for (const row of page) ids.push(row.id);
      if (page.length < ID_PAGE) return ids;
      after = page[page.length - 1]!;
      await yieldToLoop();
    }
  }

  /**
   * The documents of the posts `ids` that are still published, in the order of `ids`: what a
   * reindex reads a run at a time (SearchIndexWriter.rebuildFrom).
   */
  async ofIds(blog: BlogWithDomain, ids: readonly string[]): Promise<SearchDocument[]> {
    const docs = new Map<string, SearchDocument>();
    const slice = new TimeSlice(SLICE_MS);
    for (let start = 0; start < ids.length; start += READ_PAGE) {
      for (const post of await this.deps.site.publishedByIds(ids.slice(start, start + READ_PAGE))) {
        docs.set(post.id, await this.of(blog, post));
        // Text of posts under the worker threshold is made in place, so the event loop gets a
        // turn between posts, not only between pages of them.
        if (slice.over) await slice.next();
      }
      await slice.next();
    }
    return ids.flatMap((id) => docs.get(id) ?? []);
  }

  private document(blog: BlogWithDomain, post: SitePost | Post, text: SearchText): SearchDocument {
    return {
      id: post.id,
      slug: post.slug,
      title: post.title,
      body: text.body,
      code: text.code,
      metaDescription: post.metaDescription,
      tags: post.tags,
      createdAt: post.createdAt,
      publishedAt: post.publishedAt ?? post.createdAt,
      url: this.deps.urls.post(blog, post.slug),
    };
  }
}
