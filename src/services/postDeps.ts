import type { Clock } from '../lib/clock.js';
import type { Db } from '../db/database.js';
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

/** What the post services share; built once in compose/services.ts. */
export interface PostDeps {
  db: Db;
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

export function findPostOrThrow(deps: PostDeps, blog: BlogWithDomain, slug: string): Post {
  const post = deps.posts.findBySlug(blog.id, slug);
  if (!post) throw new NotFoundError(`post "${slug}" not found`);
  return post;
}

/**
 * Re-render a live post and everything that lists it. Call inside the change's transaction; a
 * post going live also needs its post.published event, which the caller records.
 */
export function recordPostJob(
  deps: Pick<PostDeps, 'jobs'>,
  blog: BlogWithDomain,
  post: Post,
  before: Post | null,
  now: string,
  removedAliases: readonly string[] = [],
): number {
  const payload: JobPayload = { postId: post.id, wasLive: before?.status === 'published' };
  if (before && before.slug !== post.slug) payload.previousSlug = before.slug;
  // A live post given another date moves in every list: the publisher renders the whole blog.
  if (before?.status === 'published' && before.publishedAt && before.publishedAt !== post.publishedAt) payload.previousPublishedAt = before.publishedAt;
  if (removedAliases.length > 0) payload.removedRedirects = [...removedAliases];
  if (before && before.tags.join('\n') !== post.tags.join('\n')) payload.previousTags = before.tags;
  return deps.jobs.insert({ blogId: blog.id, blogSlug: blog.slug, kind: 'post', payload, now });
}

/** Take a post that was live off the site (unpublish or delete). */
export function recordRemovalJob(deps: Pick<PostDeps, 'jobs'>, blog: BlogWithDomain, before: Post, now: string, redirects: string[]): number {
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
