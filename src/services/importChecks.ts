/**
 * What `folio import` checks of each blog and post of an export document: what the API checks
 * of the same blog or post created through it. The request schemas are the API's own, compiled
 * by its validator and handed in by the command (services never import the HTTP layer); the rest
 * are the functions PostsService runs (postChecks.ts, timestamps.ts).
 */
import { AppError } from '../domain/errors.js';
import type { Plan } from '../domain/plans.js';
import { minimumPlan, planIncludes, themeKeyCapability } from '../domain/plans.js';
import { checkedAliases, checkPublishedAt, checkSlugNotReserved } from './postChecks.js';
import { parseTimestamp } from './timestamps.js';
import type { ExportedBlog, ExportedPost } from './exportFormat.js';

/** A request body checked against one of the API's schemas: why it would be refused, or null. */
export type BodyCheck = (schema: 'createBlog' | 'updateBlog' | 'createPost', body: unknown) => string | null;

/** The post as the database will hold it, its dates normalised; or why the API would refuse it. */
export interface CheckedPost {
  post: ExportedPost;
  publishedAt: string | null;
  scheduledAt: string | null;
  createdAt: string;
  updatedAt: string;
  aliases: string[];
}

function time(value: string | null, field: string): string {
  const date = value === null ? null : parseTimestamp(value);
  if (!date) throw new ImportRefusal(`${field} ${value === null ? 'is missing' : `is not an ISO 8601 time with a zone: "${value}"`}`);
  return date.toISOString();
}

export class ImportRefusal extends Error {}

/** The blog's own fields, as POST /v1/blogs and PUT /v1/blogs/:id would check them. */
export function checkBlog(blog: ExportedBlog, check: BodyCheck): string | null {
  return check('createBlog', { slug: blog.slug, name: blog.name, description: blog.description }) ?? check('updateBlog', { theme_config: blog.theme_config });
}

/** Theme keys the account's plan does not include (the API answers 403 for them): dropped, each named. */
export function themeForPlan(theme: Record<string, unknown>, plan: Plan): { theme: Record<string, unknown>; dropped: string[] } {
  const kept: Record<string, unknown> = {};
  const dropped: string[] = [];
  for (const [key, value] of Object.entries(theme)) {
    const capability = themeKeyCapability(key);
    if (value !== null && value !== undefined && capability !== null && !planIncludes(plan, capability))
      dropped.push(`theme_config.${key} needs the ${minimumPlan(capability)} plan`);
    else kept[key] = value;
  }
  return { theme: kept, dropped };
}

/** One post, as POST /v1/posts (then the schedule operation) would check it; `now` bounds published_at. */
export function checkPost(post: ExportedPost, check: BodyCheck, now: Date): CheckedPost {
  const body = {
    title: post.title,
    content: post.content,
    slug: post.slug,
    tags: post.tags,
    meta: post.meta,
    ...(post.status === 'scheduled' ? {} : { status: post.status }),
  };
  const refused = check('createPost', body);
  if (refused) throw new ImportRefusal(refused);
  try {
    checkSlugNotReserved(post.slug);
    const createdAt = time(post.created_at, 'created_at');
    const updatedAt = time(post.updated_at, 'updated_at');
    let publishedAt: string | null = null;
    let scheduledAt: string | null = null;
    if (post.status === 'published') {
      publishedAt = time(post.published_at ?? post.created_at, 'published_at');
      checkPublishedAt(new Date(publishedAt), 'published', now);
    } else if (post.status === 'scheduled') {
      scheduledAt = time(post.scheduled_at, 'scheduled_at');
    }
    const aliases = checkedAliases(post.aliases ?? []);
    return { post, publishedAt, scheduledAt, createdAt, updatedAt, aliases };
  } catch (err) {
    if (err instanceof AppError) throw new ImportRefusal(err.message);
    throw err;
  }
}
