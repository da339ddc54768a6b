import type { Clock } from '../lib/clock.js';
import type { SqlClient, SqlTransaction } from '../db/sql/sqlClient.js';
import type { JobPayload, JobsRepo } from '../db/jobsRepo.js';
import type { PostsRepo } from '../db/postsRepo.js';
import type { PostRevisionsRepo } from '../db/postRevisionsRepo.js';
import type { Post } from '../domain/post.js';
import type { MediaRepo } from '../db/mediaRepo.js';
import type { WebhookEvents } from '../webhooks/webhookEvents.js';
import type { ContentRenderer } from '../content/contentRenderer.js';
import { NotFoundError } from '../domain/errors.js';
import type { BlogWithDomain } from '../domain/blog.js';
import type { PublishQueue } from '../domain/publishQueue.js';
import type { TakenRedirect } from './addressClaims.js';

/** What the post services share; built once in compose/services.ts. */
export interface PostDeps {
  sql: SqlClient;
  posts: PostsRepo;
  /** Each post's history of title and Markdown, written with the change (revisionRecord.ts). */
  revisions: PostRevisionsRepo;
  jobs: JobsRepo;
  /** Which images each post names (an image a live post uses cannot be deleted). */
  media: MediaRepo;
  /** Webhook events, recorded in the change's own transaction. */
  events: WebhookEvents;
  runner: PublishQueue;
  clock: Clock;
  /** Markdown → HTML, description and counts, off the event loop for large posts. */
  content: ContentRenderer;
}

/** The repositories a post change writes through, bound to its transaction (PostDeps' own, `in(tx)`). */
export type PostTx = Pick<PostDeps, 'posts' | 'revisions' | 'jobs' | 'media' | 'events'>;

export function postTx(deps: PostDeps, tx: SqlTransaction): PostTx {
  return {
    posts: deps.posts.in(tx),
    revisions: deps.revisions.in(tx),
    jobs: deps.jobs.in(tx),
    media: deps.media.in(tx),
    events: deps.events.in(tx),
  };
}

/** Through `posts` as given: the plain repository, or one bound to a transaction under way. */
export async function findPostOrThrow(deps: Pick<PostDeps, 'posts'>, blog: BlogWithDomain, slug: string): Promise<Post> {
  const post = await deps.posts.findBySlug(blog.id, slug);
  if (!post) throw new NotFoundError(`post "${slug}" not found`);
  return post;
}

/**
 * Re-render a live post and everything that lists it. Call inside the change's transaction
 * (`deps.jobs` bound to it: postTx); a post going live also needs its post.published event,
 * which the caller records.
 */
export async function recordPostJob(
  deps: Pick<PostDeps, 'jobs'>,
  blog: BlogWithDomain,
  post: Post,
  before: Post | null,
  now: string,
  removedAliases: readonly string[] = [],
): Promise<number> {
  const payload: JobPayload = { postId: post.id, wasLive: before?.status === 'published' };
  if (before && before.slug !== post.slug) payload.previousSlug = before.slug;
  // A live post given another date moves in every list: the publisher renders the whole blog.
  if (before?.status === 'published' && before.publishedAt && before.publishedAt !== post.publishedAt) payload.previousPublishedAt = before.publishedAt;
  if (removedAliases.length > 0) payload.removedRedirects = [...removedAliases];
  if (before && before.tags.join('\n') !== post.tags.join('\n')) payload.previousTags = before.tags;
  return deps.jobs.insert({ blogId: blog.id, blogSlug: blog.slug, kind: 'post', payload, now });
}

/**
 * The store's objects of redirects other posts lost to this change (addressClaims.takeRedirect)
 * go: a `post` job for each live post that had one, naming the addresses it no longer redirects
 * from. A redirect is in the store only while its post is live. Inside the change's transaction,
 * before the change's own job, so a post taking the address renders there after the removal.
 */
export async function recordRedirectsTaken(
  deps: Pick<PostTx, 'posts' | 'jobs'>,
  blog: BlogWithDomain,
  taken: readonly TakenRedirect[],
  now: string,
): Promise<number[]> {
  const slugsByPost = new Map<string, string[]>();
  for (const { postId, slug } of taken) slugsByPost.set(postId, [...(slugsByPost.get(postId) ?? []), slug]);
  const jobIds: number[] = [];
  for (const [postId, slugs] of slugsByPost) {
    if ((await deps.posts.findById(postId))?.status !== 'published') continue;
    const payload: JobPayload = { postId, wasLive: true, removedRedirects: slugs };
    jobIds.push(await deps.jobs.insert({ blogId: blog.id, blogSlug: blog.slug, kind: 'post', payload, now }));
  }
  return jobIds;
}

/** Take a post that was live off the site (unpublish or delete). */
export async function recordRemovalJob(deps: Pick<PostDeps, 'jobs'>, blog: BlogWithDomain, before: Post, now: string, redirects: string[]): Promise<number> {
  const payload: JobPayload = { postId: before.id, previousSlug: before.slug, previousTags: before.tags };
  if (before.publishedAt) payload.previousPublishedAt = before.publishedAt;
  if (redirects.length > 0) payload.removedRedirects = redirects;
  return deps.jobs.insert({
    blogId: blog.id,
    blogSlug: blog.slug,
    kind: 'post_removed',
    payload,
    now,
  });
}
