/**
 * `folio import <file>`: an export document (exportFormat.ts) becomes blogs and posts of an
 * account on this Folio. Everything is checked before anything is written (the document's shape,
 * slugs free here, no duplicates); each blog is then written in one transaction with its posts,
 * their Markdown rendered beforehand. Posts keep their status and dates; scheduled posts go live
 * at their time. Not carried over: custom domains (they must be verified again) and media files
 * (posts keep naming the images at their old URLs; the list is in the document).
 */
import { randomUUID } from 'node:crypto';
import { Ajv } from 'ajv';
import type { BlogsRepo, BlogWithDomain } from '../db/blogsRepo.js';
import type { Db } from '../db/database.js';
import type { MediaRepo } from '../db/mediaRepo.js';
import type { Post, PostsRepo } from '../db/postsRepo.js';
import { writeTransaction } from '../db/writeTransaction.js';
import type { ContentRenderer } from '../content/contentRenderer.js';
import type { PostContent } from '../content/postContent.js';
import { mediaHashesIn } from '../media/mediaNames.js';
import { exportDocumentSchema, type ExportDocument, type ExportedBlog } from './exportFormat.js';
import { BLOG_SLUG_PATTERN, isValidSlug } from './slugs.js';

export class ImportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImportError';
  }
}

const BLOG_SLUG = new RegExp(BLOG_SLUG_PATTERN);
const validateDocument = new Ajv({ allErrors: false, strict: false, allowUnionTypes: true }).compile(exportDocumentSchema);

export interface ImportResult {
  blogs: BlogWithDomain[];
  posts: number;
  /** What the document had that was not imported, one line each. */
  notes: string[];
}

export class AccountImporter {
  constructor(private readonly deps: { db: Db; blogs: BlogsRepo; posts: PostsRepo; media: MediaRepo; content: ContentRenderer }) {}

  /** Checks the document's shape and that it fits here; throws ImportError naming the first problem. */
  check(document: unknown): ExportDocument {
    if (!validateDocument(document)) {
      const error = validateDocument.errors?.[0];
      throw new ImportError(`not a Folio export: ${error?.instancePath || '(document)'} ${error?.message ?? 'is invalid'}`);
    }
    const doc = document as unknown as ExportDocument;
    const slugs = new Set<string>();
    for (const blog of doc.blogs) {
      const where = `blog "${blog.slug}"`;
      if (!BLOG_SLUG.test(blog.slug)) throw new ImportError(`${where}: not a valid blog slug`);
      if (slugs.has(blog.slug)) throw new ImportError(`${where} appears twice in the document`);
      slugs.add(blog.slug);
      if (this.deps.blogs.findBySlug(blog.slug) || this.deps.blogs.isSlugRetired(blog.slug)) throw new ImportError(`${where}: the slug is taken on this Folio; nothing was imported`);
      const postSlugs = new Set<string>();
      for (const post of blog.posts) {
        if (!isValidSlug(post.slug)) throw new ImportError(`${where}, post "${post.slug}": not a valid post slug`);
        if (postSlugs.has(post.slug)) throw new ImportError(`${where}, post "${post.slug}" appears twice`);
        postSlugs.add(post.slug);
        if (post.status === 'scheduled' && !post.scheduled_at) throw new ImportError(`${where}, post "${post.slug}": scheduled without scheduled_at`);
      }
    }
    return doc;
  }

  async import(accountId: string, doc: ExportDocument, onProgress?: (done: number, total: number) => void): Promise<ImportResult> {
    const total = doc.blogs.reduce((n, b) => n + b.posts.length, 0);
    let done = 0;
    const result: ImportResult = { blogs: [], posts: 0, notes: [] };
    for (const blog of doc.blogs) {
      // Rendered before the transaction, as every post write is (posts.ts).
      const contents: PostContent[] = [];
      for (const post of blog.posts) {
        contents.push(await this.deps.content.derive(accountId, { title: post.title, contentMd: post.content }));
        onProgress?.(++done, total);
      }
      const created = await writeTransaction(this.deps.db, () => this.writeBlog(accountId, blog, contents));
      result.blogs.push(created);
      result.posts += blog.posts.length;
      if (blog.custom_domain) result.notes.push(`${blog.slug}: custom domain ${blog.custom_domain} not carried over; register it again (POST /v1/blogs/:id/domain)`);
      if (blog.media.length > 0) result.notes.push(`${blog.slug}: ${blog.media.length} images stay at their old URLs; upload them again to serve them from here`);
    }
    return result;
  }

  private writeBlog(accountId: string, blog: ExportedBlog, contents: PostContent[]): BlogWithDomain {
    const { blogs, posts, media } = this.deps;
    // Checked again under the write lock: the slug may have been taken since check().
    if (blogs.findBySlug(blog.slug) || blogs.isSlugRetired(blog.slug)) throw new ImportError(`blog "${blog.slug}": the slug was taken while importing`);
    const id = randomUUID();
    blogs.insert({ id, accountId, slug: blog.slug, name: blog.name, description: blog.description, themeConfig: blog.theme_config, createdAt: blog.created_at, updatedAt: blog.updated_at });
    blog.posts.forEach((post, i) => {
      const content = contents[i]!;
      const row: Post = {
        id: randomUUID(),
        blogId: id,
        title: post.title,
        slug: post.slug,
        contentMd: post.content,
        contentHtml: content.contentHtml,
        metaDescription: post.meta.description ?? content.description,
        metaExplicit: post.meta.description !== null,
        ogImageUrl: post.meta.og_image,
        tags: [...new Set(post.tags.map((tag) => tag.trim()))],
        status: post.status,
        publishedAt: post.status === 'published' ? (post.published_at ?? post.created_at) : null,
        scheduledAt: post.status === 'scheduled' ? post.scheduled_at : null,
        createdAt: post.created_at,
        updatedAt: post.updated_at,
        textCounts: content.textCounts,
      };
      posts.insert(row);
      media.setPostRefs(row.id, id, mediaHashesIn(`${row.contentMd}\n${row.ogImageUrl ?? ''}`));
    });
    return blogs.findById(id)!;
  }
}
