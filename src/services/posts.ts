import { randomUUID } from 'node:crypto';
import { isUniqueViolation } from '../db/database.js';
import { commitThenPublish } from './commitThenPublish.js';
import type { PostContent } from '../content/postContent.js';
import { derivePostOrRefuse, retitledContent } from './postDerive.js';
import { isoNow } from '../lib/clock.js';
import { BadRequestError, ConflictError, NotFoundError } from '../domain/errors.js';
import { checkPrecondition, type Precondition } from './precondition.js';
import { findPostOrThrow, postTx, recordPostJob, recordRedirectsTaken, recordRemovalJob, type PostDeps } from './postDeps.js';
import { mediaHashesIn } from '../media/mediaNames.js';
import { claimAliases, claimSlug, type TakenRedirect } from './addressClaims.js';
import { checkedAliases, checkPublishedAt } from './postChecks.js';
import type { Post, PostListQuery, PostSummary, PostVersion } from '../domain/post.js';
import type { BlogWithDomain } from '../domain/blog.js';
import { recordRevision, type RevisionSource } from './revisionRecord.js';
import type { MediaRepo } from '../db/mediaRepo.js';
import type { PostsRepo } from '../db/postsRepo.js';

export interface CreatePostInput {
  title: string;
  contentMd: string;
  slug?: string;
  tags?: string[];
  status?: 'draft' | 'published';
  metaDescription?: string;
  ogImageUrl?: string | null;
  /** An explicit publication time in the past (a post moved from elsewhere); only with status published. */
  publishedAt?: Date;
  /** Old addresses that redirect to the post (services/aliases.ts), as the author wrote them. */
  aliases?: string[];
  /** Who writes it, for its revision (revisionRecord.ts). */
  source?: RevisionSource;
}

export interface UpdatePostInput {
  title?: string;
  contentMd?: string;
  slug?: string;
  tags?: string[];
  status?: 'draft' | 'published';
  /** null returns to a description generated from the content. */
  metaDescription?: string | null;
  ogImageUrl?: string | null;
  /** A new publication time in the past; the post must be (or become) published. */
  publishedAt?: Date;
  /** Replaces the post's aliases ([] removes them all). */
  aliases?: string[];
  /** Who makes the change, for the revision a new title or text writes (revisionRecord.ts). */
  source?: RevisionSource;
}

export type PostPrecondition = Precondition<Post>;

/** Attempts of `update` when the post keeps changing while its new content renders. */
const UPDATE_ATTEMPTS = 3;

/** Create, read, update and delete. State transitions live in postTransitions.ts. */
export class PostsService {
  constructor(private readonly deps: PostDeps) {}

  /**
   * The Markdown is rendered, described and counted before the write transaction opens (off the
   * event loop for large posts), so the transaction holds SQLite's write lock only for the row
   * writes, and a large post never holds other writers while it renders.
   */
  async create(blog: BlogWithDomain, input: CreatePostInput): Promise<Post> {
    const status = input.status ?? 'draft';
    checkPublishedAt(input.publishedAt, status, this.deps.clock.now());
    const aliases = input.aliases === undefined ? [] : checkedAliases(input.aliases);
    const content = await this.derive(blog, input.title, input.contentMd);
    return commitThenPublish(this.deps, async (tx, record) => {
      const { posts, revisions, jobs, media, events } = postTx(this.deps, tx);
      const now = isoNow(this.deps.clock);
      const { slug, taken } = await claimSlug(posts, blog, input.slug, input.title, null);
      const created: Post = {
        id: randomUUID(),
        blogId: blog.id,
        title: input.title,
        slug,
        contentMd: input.contentMd,
        contentHtml: content.contentHtml,
        metaDescription: input.metaDescription ?? content.description,
        metaExplicit: input.metaDescription !== undefined,
        ogImageUrl: input.ogImageUrl ?? null,
        tags: normalizeTags(input.tags ?? []),
        status,
        publishedAt: status === 'published' ? (input.publishedAt?.toISOString() ?? now) : null,
        scheduledAt: null,
        createdAt: now,
        updatedAt: now,
        textCounts: content.textCounts,
      };
      await insertOrConflict(posts, created);
      if (aliases.length > 0) taken.push(...(await claimAliases(posts, blog, created, aliases, now)));
      await recordMedia(media, blog, created);
      await recordRevision(revisions, created, null, now, input.source);
      for (const jobId of await recordRedirectsTaken({ posts, jobs }, blog, taken, now)) record(jobId);
      if (status === 'published') {
        record(await recordPostJob({ jobs }, blog, created, null, now));
        await events.post(blog, 'post.published', created, now);
      }
      return created;
    });
  }

  get(blog: BlogWithDomain, slug: string): Promise<Post> {
    return findPostOrThrow(this.deps, blog, slug);
  }

  /** The post's aliases, normalised, in the author's order. */
  aliasesOf(post: Post): Promise<string[]> {
    return this.deps.posts.aliasesOf(post.id);
  }

  /** The post's id and row version, without reading its text (a 404 like `get`). */
  async version(blog: BlogWithDomain, slug: string): Promise<PostVersion> {
    const version = await this.deps.posts.versionBySlug(blog.id, slug);
    if (!version) throw new NotFoundError(`post "${slug}" not found`);
    return version;
  }

  list(blog: BlogWithDomain, query: PostListQuery): Promise<{ posts: PostSummary[]; total: number }> {
    return this.deps.posts.list(blog.id, query);
  }

  /**
   * Content is derived from the post as read before the transaction; inside it the post must
   * still have that title and Markdown, or the derivation is redone (another request changed it
   * meanwhile). Bounded: a post rewritten faster than it renders gets a 409.
   */
  async update(blog: BlogWithDomain, slug: string, input: UpdatePostInput, precondition?: PostPrecondition): Promise<Post> {
    for (let attempt = 1; ; attempt++) {
      const base = await findPostOrThrow(this.deps, blog, slug);
      // Early, so a stale edit is refused before its Markdown is rendered; again in the transaction.
      checkPrecondition(precondition, base, `post "${base.slug}"`);
      checkPublishedAt(input.publishedAt, input.status ?? base.status, this.deps.clock.now());
      const title = input.title ?? base.title;
      const contentMd = input.contentMd ?? base.contentMd;
      // A new title alone changes only the counts: the Markdown is not rendered again for it.
      const rederive = input.contentMd !== undefined || input.metaDescription === null;
      const retitled = !rederive && input.title !== undefined ? retitledContent(base, title) : null;
      const content = retitled ?? (rederive || input.title !== undefined ? await this.derive(blog, title, contentMd) : null);
      const post = await this.applyUpdate(blog, slug, input, base, content, precondition);
      if (post) return post;
      if (attempt >= UPDATE_ATTEMPTS) throw new ConflictError(`post "${slug}" was changed by another request while this one was being rendered; try again`);
    }
  }

  /** The write transaction of `update`; null when the post changed since `base` was read. */
  private async applyUpdate(
    blog: BlogWithDomain,
    slug: string,
    input: UpdatePostInput,
    base: Post,
    content: PostContent | null,
    precondition?: PostPrecondition,
  ): Promise<Post | null> {
    const aliases = input.aliases === undefined ? undefined : checkedAliases(input.aliases);
    return commitThenPublish(this.deps, async (tx, record): Promise<Post | null> => {
      const { posts, revisions, jobs, media, events } = postTx(this.deps, tx);
      const before = await findPostOrThrow({ posts }, blog, slug);
      checkPrecondition(precondition, before, `post "${before.slug}"`);
      checkPublishedAt(input.publishedAt, input.status ?? before.status, this.deps.clock.now());
      if (content && (before.title !== base.title || before.contentMd !== base.contentMd)) return null;
      const now = isoNow(this.deps.clock);
      const next: Post = { ...before, updatedAt: now };
      if (input.title !== undefined) next.title = input.title;
      if (input.tags !== undefined) next.tags = normalizeTags(input.tags);
      if (input.ogImageUrl !== undefined) next.ogImageUrl = input.ogImageUrl;
      if (content) {
        next.contentHtml = content.contentHtml;
        next.textCounts = content.textCounts;
      }
      if (input.contentMd !== undefined) next.contentMd = input.contentMd;
      if (input.metaDescription !== undefined) {
        next.metaExplicit = input.metaDescription !== null;
        next.metaDescription = input.metaDescription ?? content!.description;
      } else if (!before.metaExplicit && content && input.contentMd !== undefined) {
        next.metaDescription = content.description;
      }
      const taken: TakenRedirect[] = [];
      if (input.slug !== undefined && input.slug !== before.slug) {
        const claimed = await claimSlug(posts, blog, input.slug, next.title, before.id);
        next.slug = claimed.slug;
        taken.push(...claimed.taken);
      }
      if (input.status === 'published' && before.status !== 'published') {
        next.status = 'published';
        next.publishedAt = input.publishedAt?.toISOString() ?? now;
        next.scheduledAt = null;
      } else if (input.publishedAt !== undefined && before.status === 'published' && input.status !== 'draft') {
        next.publishedAt = input.publishedAt.toISOString();
      } else if (input.status === 'draft' && before.status !== 'draft') {
        next.status = 'draft';
        next.publishedAt = null;
        next.scheduledAt = null;
      }
      // The old address of a live post keeps working: it redirects to the new one.
      if (next.slug !== before.slug && before.status === 'published' && next.status === 'published') {
        await posts.addRedirect(blog.id, before.slug, before.id, now);
      }
      const aliasesBefore = await posts.aliasesOf(before.id);
      const removedAliases = aliases === undefined ? [] : aliasesBefore.filter((path) => !aliases.includes(path));
      // Checked against the slug the post ends with: an alias may not be the post's own address.
      if (aliases !== undefined || next.slug !== before.slug) taken.push(...(await claimAliases(posts, blog, next, aliases ?? aliasesBefore, now)));
      await posts.update(next);
      await recordRevision(revisions, next, before, now, input.source);
      for (const jobId of await recordRedirectsTaken({ posts, jobs }, blog, taken, now)) record(jobId);
      if (next.contentMd !== before.contentMd || next.ogImageUrl !== before.ogImageUrl) await recordMedia(media, blog, next);
      if (next.status === 'published') record(await recordPostJob({ jobs }, blog, next, before, now, removedAliases));
      else if (before.status === 'published') record(await recordRemovalJob({ jobs }, blog, before, now, aliasesBefore));
      if (next.status === 'published' && before.status !== 'published') await events.post(blog, 'post.published', next, now);
      else if (next.status === 'draft' && before.status !== 'draft') await events.post(blog, 'post.unpublished', next, now);
      else await events.post(blog, 'post.updated', next, now);
      return next;
    });
  }

  async delete(blog: BlogWithDomain, slug: string, precondition?: PostPrecondition): Promise<void> {
    await commitThenPublish(this.deps, async (tx, record) => {
      const { posts, jobs, events } = postTx(this.deps, tx);
      const before = await findPostOrThrow({ posts }, blog, slug);
      checkPrecondition(precondition, before, `post "${before.slug}"`);
      // Its aliases go with it: their rows cascade, their objects are the job's to remove.
      const redirects = [...(await posts.redirectsOf(before.id)), ...(await posts.aliasesOf(before.id))];
      await posts.delete(before.id);
      await events.post(blog, 'post.deleted', before, isoNow(this.deps.clock));
      if (before.status === 'published' || redirects.length > 0) {
        record(await recordRemovalJob({ jobs }, blog, before, isoNow(this.deps.clock), redirects));
      }
    });
  }

  private derive(blog: BlogWithDomain, title: string, contentMd: string): Promise<PostContent> {
    return derivePostOrRefuse(this.deps.content, blog.accountId, title, contentMd);
  }
}

/** The images the post names now, for MediaService's "in use" check. Inside the write transaction. */
async function recordMedia(media: MediaRepo, blog: BlogWithDomain, post: Post): Promise<void> {
  await media.setPostRefs(post.id, blog.id, mediaHashesIn(`${post.contentMd}\n${post.ogImageUrl ?? ''}`));
}

async function insertOrConflict(posts: PostsRepo, post: Post): Promise<void> {
  try {
    await posts.insert(post);
  } catch (err) {
    if (isUniqueViolation(err)) throw new ConflictError(`a post with slug "${post.slug}" already exists in this blog`, { cause: err });
    throw err;
  }
}

/**
 * Trimmed, without duplicates, in the author's order. A tag holding U+0000 is refused before
 * anything is written: PostgreSQL's text cannot hold it, and its tag rows are written after the
 * post's, so the refusal would otherwise come half-way through the change (rolled back, but not
 * refused up front); SQLite refuses it too, so both answer alike.
 */
function normalizeTags(tags: string[]): string[] {
  if (tags.some((tag) => tag.includes('\u0000'))) throw new BadRequestError('tags must not hold the character U+0000 (NUL): remove it');
  return [...new Set(tags.map((tag) => tag.trim()))];
}
