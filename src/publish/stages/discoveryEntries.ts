/**
 * Keeps the cross-blog discovery index (GET /v1/discover) in step with a discoverable blog's
 * published posts: each post change through the index stage, a whole blog through the
 * `discovery` job when its owner opts in or out. What a reader may see is decided at query time
 * from the live rows (db/discoveryRepo.ts); this only keeps the words current.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { SiteRepo } from '../../db/siteRepo.js';
import type { BlogWithDomain } from '../../domain/blog.js';
import { detectPostLanguage, languageOf } from '../../domain/language.js';
import type { Post } from '../../domain/post.js';
import type { SitePost } from '../../domain/siteTypes.js';
import type { DiscoveryDocument, DiscoveryIndex } from '../../search/discovery/ports.js';
import type { SearchDocument } from '../../search/searchTypes.js';
import type { SearchDocuments } from './searchDocuments.js';

/** Posts read at a time when a whole blog is (re)indexed. */
const READ_CHUNK = 50;
/**
 * Text tokenized and written per transaction, in characters: a few ms of the event loop (the
 * tokenizer runs on it), so a blog of long posts is indexed in many small turns.
 */
const WRITE_CHARS = 200_000;

export interface DiscoveryEntriesDeps {
  discovery: DiscoveryIndex;
  site: Pick<SiteRepo, 'publishedByIds'>;
  documents: Pick<SearchDocuments, 'of' | 'ids'>;
}

export class DiscoveryEntries {
  constructor(private readonly deps: DiscoveryEntriesDeps) {}

  /** A post was published or edited (`doc` made from `live`), or left the site. */
  async postChanged(blog: BlogWithDomain, postId: string, live: SitePost | null, doc: SearchDocument | null): Promise<void> {
    if (blog.discoverable && live && doc) await this.deps.discovery.upsert([entryOf(blog, live, doc)]);
    else await this.deps.discovery.remove([postId]);
  }

  /**
   * The `discovery` job: every published post of a discoverable blog indexed afresh, a chunk per
   * transaction, then the entries of posts no longer published dropped; a blog that is not
   * discoverable (or no longer) loses all its entries. Posts changed meanwhile are the blog's
   * later jobs, which run after this one.
   */
  async refill(blog: BlogWithDomain): Promise<number> {
    if (!blog.discoverable) {
      await this.deps.discovery.prune(blog.id, new Set());
      return 0;
    }
    const ids = await this.deps.documents.ids(blog);
    const kept = new Set<string>();
    let entries: DiscoveryDocument[] = [];
    let chars = 0;
    const flush = async (): Promise<void> => {
      await this.deps.discovery.upsert(entries);
      entries = [];
      chars = 0;
      await yieldToLoop();
    };
    for (let start = 0; start < ids.length; start += READ_CHUNK) {
      for (const post of await this.deps.site.publishedByIds(ids.slice(start, start + READ_CHUNK))) {
        const entry = entryOf(blog, post, await this.deps.documents.of(blog, post));
        entries.push(entry);
        kept.add(post.id);
        chars += entry.title.length + entry.description.length + entry.body.length + entry.code.length;
        if (chars >= WRITE_CHARS) await flush();
      }
      if (entries.length > 0) await flush();
    }
    await this.deps.discovery.prune(blog.id, kept);
    return kept.size;
  }

  /** A deleted blog's entries (its `site_delete` job). */
  async drop(blogId: string): Promise<void> {
    await this.deps.discovery.prune(blogId, new Set());
  }
}

function entryOf(blog: BlogWithDomain, post: SitePost | Post, doc: SearchDocument): DiscoveryDocument {
  return {
    postId: post.id,
    blogId: blog.id,
    // The post page's own language (its <html lang>), from the counts stored with the post.
    lang: post.textCounts ? languageOf(post.textCounts) : detectPostLanguage(post),
    publishedAt: doc.publishedAt,
    title: doc.title,
    tags: doc.tags,
    description: doc.metaDescription,
    body: doc.body,
    code: doc.code,
  };
}
