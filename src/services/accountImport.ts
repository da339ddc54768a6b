/**
 * `folio import <file>`: an export document (exportFormat.ts) becomes blogs and posts of an
 * account on this Folio. Every blog and post is checked as the API checks it (importChecks.ts);
 * what fails is left out and named with its reason, and the rest is imported. Each blog is
 * written in one transaction with its posts, their Markdown rendered beforehand, and with a
 * durable 'site' job that renders its pages and search index: a process killed after the write
 * leaves the job for the server (or the next import) to run, never published posts without pages.
 * Posts keep their status and dates; scheduled posts go live at their time. Not carried over:
 * custom domains (they must be verified again) and media files (posts keep naming the images at
 * their old URLs; the list is in the document).
 */
import { randomUUID } from 'node:crypto';
import { Ajv } from 'ajv';
import type { Account } from '../db/accountsRepo.js';
import type { BlogsRepo } from '../db/blogsRepo.js';
import type { BlogWithDomain } from '../domain/blog.js';
import { IMPORTED, type JobsRepo } from '../db/jobsRepo.js';
import type { MediaRepo } from '../db/mediaRepo.js';
import type { PostsRepo } from '../db/postsRepo.js';
import type { PostRevisionsRepo } from '../db/postRevisionsRepo.js';
import { recordRevision } from './revisionRecord.js';
import type { Post } from '../domain/post.js';
import type { SqlClient, SqlTransaction } from '../db/sql/sqlClient.js';
import type { Clock } from '../lib/clock.js';
import { isoNow } from '../lib/clock.js';
import type { ContentRenderer } from '../content/contentRenderer.js';
import { MAX_CONTENT_HTML_BYTES, type PostContent } from '../content/postContent.js';
import { mediaHashesIn } from '../media/mediaNames.js';
import { slugOfAlias } from './aliases.js';
import { exportDocumentSchema, type ExportDocument, type ExportedBlog } from './exportFormat.js';
import { checkBlog, checkPost, ImportRefusal, themeForPlan, type BodyCheck, type CheckedPost } from './importChecks.js';
import { planLimits } from '../domain/plans.js';

export class ImportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImportError';
  }
}

const validateDocument = new Ajv({ allErrors: false, strict: false, allowUnionTypes: true }).compile(exportDocumentSchema);

/** Something of the document that was not imported, and why. */
export interface Skipped {
  blog: string;
  post?: string;
  reason: string;
}

export interface ImportResult {
  blogs: BlogWithDomain[];
  posts: number;
  skipped: Skipped[];
  /** What was imported only in part or needs the operator (domains, media), one line each. */
  notes: string[];
  /** The 'site' jobs that render the imported blogs, one per blog. */
  jobIds: number[];
}

interface PlannedBlog {
  blog: ExportedBlog;
  theme: Record<string, unknown>;
  posts: CheckedPost[];
}

export interface ImporterDeps {
  sql: SqlClient;
  blogs: BlogsRepo;
  posts: PostsRepo;
  /** Each imported post starts its history with the text it was imported with. */
  revisions: PostRevisionsRepo;
  media: MediaRepo;
  jobs: JobsRepo;
  content: ContentRenderer;
  clock: Clock;
  /** The API's request schemas, compiled by its validator (the command hands them in). */
  checkBody: BodyCheck;
}

export class AccountImporter {
  constructor(private readonly deps: ImporterDeps) {}

  /** The document's shape; throws ImportError when it is not an export at all. */
  check(document: unknown): ExportDocument {
    if (!validateDocument(document)) {
      const error = validateDocument.errors?.[0];
      throw new ImportError(`not a Folio export: ${error?.instancePath || '(document)'} ${error?.message ?? 'is invalid'}`);
    }
    return document as unknown as ExportDocument;
  }

  async import(account: Account, doc: ExportDocument, onProgress?: (done: number, total: number) => void): Promise<ImportResult> {
    const result: ImportResult = { blogs: [], posts: 0, skipped: [], notes: [], jobIds: [] };
    const planned = await this.plan(account, doc, result.skipped);
    const total = planned.reduce((n, b) => n + b.posts.length, 0);
    let done = 0;
    for (const { blog, theme, posts } of planned) {
      // Rendered before the transaction, as every post write is (posts.ts); too much HTML is the API's 400.
      const rendered: { checked: CheckedPost; content: PostContent }[] = [];
      for (const checked of posts) {
        const content = await this.deps.content.derive(account.id, { title: checked.post.title, contentMd: checked.post.content });
        onProgress?.(++done, total);
        if (content.htmlBytes > MAX_CONTENT_HTML_BYTES)
          result.skipped.push({ blog: blog.slug, post: checked.post.slug, reason: 'content renders to more than 3 MB of HTML' });
        else rendered.push({ checked, content });
      }
      try {
        const { created, jobId } = await this.deps.sql.transaction((tx) => this.writeBlog(tx, account, blog, theme, rendered));
        result.blogs.push(created);
        result.jobIds.push(jobId);
        result.posts += rendered.length;
      } catch (err) {
        if (!(err instanceof ImportRefusal)) throw err;
        result.skipped.push({ blog: blog.slug, reason: err.message });
        continue;
      }
      if (blog.custom_domain)
        result.notes.push(`${blog.slug}: custom domain ${blog.custom_domain} not carried over; register it again (POST /v1/blogs/:id/domain)`);
      if (blog.media.length > 0)
        result.notes.push(`${blog.slug}: ${blog.media.length} images stay at their old URLs; upload them again to serve them from here`);
    }
    return result;
  }

  /** The blogs and posts to import, each checked as the API checks it; the rest go to `skipped`. */
  private async plan(account: Account, doc: ExportDocument, skipped: Skipped[]): Promise<PlannedBlog[]> {
    const planned: PlannedBlog[] = [];
    const seen = new Set<string>();
    let blogCount = await this.deps.blogs.countByAccount(account.id);
    const { maxBlogs } = planLimits(account.plan);
    const now = this.deps.clock.now();
    for (const blog of doc.blogs) {
      const skip = (reason: string) => skipped.push({ blog: blog.slug, reason: `${reason}; none of its ${blog.posts.length} posts were imported` });
      const refused = checkBlog(blog, this.deps.checkBody);
      if (refused) {
        skip(refused);
        continue;
      }
      if (seen.has(blog.slug)) {
        skip('the blog appears twice in the document');
        continue;
      }
      seen.add(blog.slug);
      const holder = await this.deps.blogs.findBySlug(blog.slug);
      if (holder) {
        skip(holder.accountId === account.id ? 'this account already has a blog with this slug (imported before?)' : 'the slug is taken on this Folio');
        continue;
      }
      if (await this.deps.blogs.isSlugRetired(blog.slug)) {
        skip('the slug belonged to a deleted blog whose site is still being removed; try again in a minute');
        continue;
      }
      if (blogCount >= maxBlogs) {
        skip(`the ${account.plan} plan allows ${maxBlogs} blog${maxBlogs === 1 ? '' : 's'} (folio account set-plan raises it)`);
        continue;
      }
      blogCount += 1;
      const { theme, dropped } = themeForPlan(blog.theme_config, account.plan);
      for (const reason of dropped) skipped.push({ blog: blog.slug, reason });
      planned.push({ blog, theme, posts: this.planPosts(blog, now, skipped) });
    }
    return planned;
  }

  /** The blog's posts the API would take, in order; a slug or alias a post before it holds is the API's 409. */
  private planPosts(blog: ExportedBlog, now: Date, skipped: Skipped[]): CheckedPost[] {
    const posts: CheckedPost[] = [];
    const slugs = new Set<string>();
    const aliases = new Set<string>();
    for (const post of blog.posts) {
      try {
        const checked = checkPost(post, this.deps.checkBody, now);
        if (slugs.has(post.slug) || aliases.has(`/${post.slug}/`)) throw new ImportRefusal(`another post of the blog already has the slug "${post.slug}"`);
        const clash = checked.aliases.find((path) => aliases.has(path) || slugs.has(slugOfAlias(path) ?? '') || slugOfAlias(path) === post.slug);
        if (clash) throw new ImportRefusal(`the alias "${clash}" is the post's own address or another post's`);
        slugs.add(post.slug);
        for (const path of checked.aliases) aliases.add(path);
        posts.push(checked);
      } catch (err) {
        if (!(err instanceof ImportRefusal)) throw err;
        skipped.push({ blog: blog.slug, post: post.slug, reason: err.message });
      }
    }
    return posts;
  }

  private async writeBlog(
    tx: SqlTransaction,
    account: Account,
    blog: ExportedBlog,
    theme: Record<string, unknown>,
    rendered: { checked: CheckedPost; content: PostContent }[],
  ): Promise<{ created: BlogWithDomain; jobId: number }> {
    const blogs = this.deps.blogs.in(tx);
    const posts = this.deps.posts.in(tx);
    const revisions = this.deps.revisions.in(tx);
    const media = this.deps.media.in(tx);
    const jobs = this.deps.jobs.in(tx);
    // Checked again under the write lock: the slug may have been taken since plan().
    if ((await blogs.findBySlug(blog.slug)) || (await blogs.isSlugRetired(blog.slug))) throw new ImportRefusal('the slug was taken while importing');
    const id = randomUUID();
    const now = isoNow(this.deps.clock);
    await blogs.insert({
      id,
      accountId: account.id,
      slug: blog.slug,
      name: blog.name,
      description: blog.description,
      themeConfig: theme,
      discoverable: blog.discoverable === true,
      createdAt: blog.created_at,
      updatedAt: blog.updated_at,
    });
    for (const { checked, content } of rendered) {
      const { post } = checked;
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
        publishedAt: checked.publishedAt,
        scheduledAt: checked.scheduledAt,
        createdAt: checked.createdAt,
        updatedAt: checked.updatedAt,
        textCounts: content.textCounts,
      };
      await posts.insert(row);
      await recordRevision(revisions, row, null, now);
      await posts.setAliases(id, row.id, checked.aliases, now);
      await media.setPostRefs(row.id, id, mediaHashesIn(`${row.contentMd}\n${row.ogImageUrl ?? ''}`));
    }
    const jobId = await jobs.insert({ blogId: id, blogSlug: blog.slug, kind: 'site', payload: { reason: IMPORTED }, now });
    return { created: (await blogs.findById(id))!, jobId };
  }
}
