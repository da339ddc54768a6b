import type { Middleware } from 'koa';
import type { AppState } from '../state.js';

/**
 * JSON answers are never a document: a browser that is sent one anyway (a link, a mistaken
 * frame) runs nothing, loads nothing, frames nothing and sniffs no other type. Routes that serve
 * a page (the API reference at /v1/docs) set their own Content-Security-Policy over this one.
 */
const API_POLICY = "default-src 'none'; frame-ancestors 'none'";

/** The headers of every API answer, errors included (set before the chain runs, kept by errorHandler). */
export const securityHeaders: Middleware<AppState> = async (ctx, next) => {
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Content-Security-Policy', API_POLICY);
  await next();
};
