/**
 * Conflict-free edits: GET /posts/:slug and GET /blogs/:id answer with an ETag of exactly what
 * they return, and PUT/DELETE with If-Match write only when the resource still is what the
 * client read (RFC 9110 §13.1.1: strong comparison, `*` for "exists", several tags allowed).
 * The comparison runs inside the write's own transaction, as a predicate the service calls on
 * the row it is about to change, so two editors racing with the same tag cannot both win.
 */
import { createHash } from 'node:crypto';
import type { AppContext } from './state.js';

/** Strong validator of a JSON answer. */
export function etagOf(body: unknown): string {
  return etagOfJson(JSON.stringify(body));
}

/** The same validator from the answer's JSON text, for a handler that serialises only once. */
export function etagOfJson(json: string): string {
  return `"${createHash('sha256').update(json).digest('base64url').slice(0, 27)}"`;
}

/**
 * A post's validator names its row version (every update advances `revision`), not a hash of
 * its Markdown and HTML: GET of a post is the API's hottest read. Opaque all the same. The
 * blog's origin is part of it: the answer names the blog's own images on that origin, so a new
 * domain is a new representation of the same row.
 */
export function etagOfPost(post: { id: string; revision?: number }, origin: string): string {
  return etagOfJson(`post:${post.id}:${post.revision ?? 0}:${origin}`);
}

/** Answers `body` with its ETag, serialised once (hashed by `etagOfJson` when no tag is given). */
export function sendWithEtag(ctx: AppContext, body: unknown, etag?: string): void {
  const json = JSON.stringify(body);
  sendJson(ctx, json, etag ?? etagOfJson(json));
}

/** Answers JSON text already serialised, with its ETag. */
export function sendJson(ctx: AppContext, json: string, etag: string): void {
  ctx.set('ETag', etag);
  ctx.type = 'application/json; charset=utf-8';
  ctx.body = json;
}

/**
 * The request's If-Match as a predicate on the current resource (tagged as GET tags it), or
 * undefined without the header.
 */
export function ifMatch<T>(ctx: AppContext, tagOf: (current: T) => string): ((current: T) => boolean) | undefined {
  const header = ctx.get('if-match').trim();
  if (header === '') return undefined;
  if (header === '*') return () => true;
  const wanted = new Set(
    header
      .split(',')
      .map((tag) => tag.trim())
      .filter((tag) => !tag.startsWith('W/')),
  );
  return (current) => wanted.has(tagOf(current));
}
