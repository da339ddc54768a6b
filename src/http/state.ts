import type { ParameterizedContext } from 'koa';
import type { BlogWithDomain } from '../domain/blog.js';
import type { AuthContext } from '../services/authContext.js';

/** The raw body of an upload route, as middleware/uploadBody.ts read it. */
export interface Upload {
  bytes: Buffer;
  contentType: string;
}

/** What the middleware chain leaves on ctx.state for the handlers. */
export interface AppState {
  requestId: string;
  auth?: AuthContext;
  blog?: BlogWithDomain;
  body?: unknown;
  query?: unknown;
  /** The raw body of an upload route (middleware/uploadBody.ts). */
  upload?: Upload;
  /** Route pattern for metrics (`/v1/posts/:slug`, `site`); set by the chain that answers. */
  route?: string;
  /** What the access log names instead of the path, when the path holds a secret (a preview token). */
  loggedPath?: string;
}

export type AppContext = ParameterizedContext<AppState> & { params: Record<string, string> };

/** The authenticated caller; the authenticate middleware guarantees it on API routes. */
export function authOf(ctx: AppContext): AuthContext {
  if (!ctx.state.auth) throw new Error('route reached without authentication');
  return ctx.state.auth;
}

export function blogOf(ctx: AppContext): BlogWithDomain {
  if (!ctx.state.blog) throw new Error('route reached without a resolved blog');
  return ctx.state.blog;
}

export function uploadOf(ctx: AppContext): Upload {
  if (!ctx.state.upload) throw new Error('route reached without its upload body');
  return ctx.state.upload;
}
