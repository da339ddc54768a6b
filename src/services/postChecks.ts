/**
 * The checks of a post write that need no database: the same functions run in PostsService, in
 * `folio import` and in `folio push --dry-run`, so all three refuse the same things.
 */
import { BadRequestError } from '../domain/errors.js';
import type { Post } from '../domain/post.js';
import { normalizeAliases } from './aliases.js';
import { isReservedSlug } from './slugs.js';

/** A publication time must be in the past and the post published; later is the schedule's job. */
export function checkPublishedAt(publishedAt: Date | undefined, status: Post['status'], now: Date): void {
  if (publishedAt === undefined) return;
  if (status !== 'published') {
    throw new BadRequestError('published_at can only be set on a published post: send status "published" with it', {
      details: [{ field: 'published_at', message: 'needs status published' }],
    });
  }
  if (publishedAt.getTime() > now.getTime()) {
    throw new BadRequestError('published_at must not be in the future; to publish later, use POST /posts/:slug/schedule with scheduled_at', {
      details: [{ field: 'published_at', message: 'must not be in the future (use the schedule operation)' }],
    });
  }
}

/** The aliases normalised (services/aliases.ts), or a 400 naming each bad entry. */
export function checkedAliases(raw: readonly string[]): string[] {
  const checked = normalizeAliases(raw);
  if ('issues' in checked) {
    const first = checked.issues[0]!;
    throw new BadRequestError(`invalid request body: ${first.field} ${first.message}`, { details: checked.issues });
  }
  return checked.paths;
}

/** An explicit slug the site's own pages use is a 400 (addressClaims.claimSlug). */
export function checkSlugNotReserved(slug: string): void {
  if (isReservedSlug(slug))
    throw new BadRequestError(`slug "${slug}" is reserved for the site's own pages`, { details: [{ field: 'slug', message: 'is reserved' }] });
}
