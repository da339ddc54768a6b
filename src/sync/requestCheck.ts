/**
 * `folio push --dry-run` checks each request it would send as the API will: the route's own
 * JSON schema (posts.schema.ts, compiled by the same validator), then the post checks that need
 * no database (services/postChecks.ts). What needs the blog's data (a slug or alias another post
 * holds) is checked against the blog's post list and the folder itself, not the other posts'
 * aliases: those surface as the API's 409 on the real push.
 */
import { compileSchema, validationError } from '../http/middleware/validate.js';
import { createPostBody, updatePostBody, type PostBodyInput } from '../http/routes/posts.schema.js';
import { AppError } from '../domain/errors.js';
import { checkedAliases, checkPublishedAt, checkSlugNotReserved } from '../services/postChecks.js';
import { parseTimestamp } from '../services/timestamps.js';

/** Why the API would refuse the body (`field message`), or null when it would take it. */
export function refusalOf(kind: 'create' | 'update', body: PostBodyInput, statusAfter: 'draft' | 'published' | 'scheduled'): string | null {
  const schema = kind === 'create' ? createPostBody : updatePostBody;
  const check = compileSchema(schema, 'body');
  try {
    if (!check(body)) throw validationError(check.errors, 'body');
    if (body.slug !== undefined) checkSlugNotReserved(body.slug);
    if (body.aliases !== undefined) checkedAliases(body.aliases);
    if (body.published_at !== undefined) {
      const at = parseTimestamp(body.published_at);
      if (!at) return `bad_request: published_at must be an ISO 8601 datetime with a time zone`;
      checkPublishedAt(at, statusAfter, new Date());
    }
    return null;
  } catch (err) {
    if (err instanceof AppError) return `${err.code}: ${err.message}`;
    throw err;
  }
}
