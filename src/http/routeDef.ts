import type { AddressRateLimiter } from '../services/addressRateLimiter.js';
import type { Scope } from '../services/authContext.js';
import type { SecretField } from '../services/idempotency.js';
import type { JsonSchema } from './middleware/validate.js';
import type { AppContext } from './state.js';

/**
 * A route declared as data: app.ts turns it into a middleware chain (auth → rate limit → scope
 * → blog → validation → handler), and openapi/document.ts describes it from the same schemas.
 */
export interface RouteDef {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Relative to /v1, in @koa/router syntax (`/posts/:slug`). */
  path: string;
  summary: string;
  /**
   * What a caller needs to know beyond the summary (the OpenAPI operation's `description`;
   * Spectral's operation-description rule, in npm test, wants one on every operation).
   */
  description: string;
  /** Unique name of the operation in the OpenAPI document (generated clients' method name). */
  operationId: string;
  tag: string;
  /** Scope the key needs; routes without one need no authentication at all. */
  scope?: Scope;
  /** Routes without a key: a budget per client address (app.ts), with the X-RateLimit-* headers. */
  rateLimit?: 'address';
  /** With `rateLimit: 'address'`: this route's own budget instead of the app's shared one. */
  addressLimiter?: AddressRateLimiter;
  /** Resolve the blog from X-Blog-Id or the key's binding (post and search routes). */
  blogScoped?: boolean;
  body?: JsonSchema;
  /** The body is raw bytes of these media types (bodyLimits.ts lists the route and its limit). */
  upload?: { contentTypes: string[]; description: string };
  query?: JsonSchema;
  /** ETags (http/etag.ts): `read` answers with one; `write` takes If-Match (412 when stale). */
  etag?: 'read' | 'write';
  /** Success status: 201 for creation, 204 for an answer without a body, else 200. */
  status: 200 | 201 | 204;
  /**
   * The success body's field holding a secret shown only once: never kept for Idempotency-Key
   * retries, which get a 409 instead (services/idempotency.ts).
   */
  secret?: SecretField;
  /** JSON Schema of the success body, for the OpenAPI document. */
  response?: JsonSchema;
  handler: (ctx: AppContext) => Promise<void> | void;
}
