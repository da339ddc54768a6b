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
  return `"${createHash('sha256').update(JSON.stringify(body)).digest('base64url').slice(0, 27)}"`;
}

/**
 * The request's If-Match as a predicate on the current resource (presented as GET presents it),
 * or undefined without the header.
 */
export function ifMatch<T>(ctx: AppContext, present: (current: T) => unknown): ((current: T) => boolean) | undefined {
  const header = ctx.get('if-match').trim();
  if (header === '') return undefined;
  if (header === '*') return () => true;
  const wanted = new Set(header.split(',').map((tag) => tag.trim()).filter((tag) => !tag.startsWith('W/')));
  return (current) => wanted.has(etagOf(present(current)));
}
