import type { Middleware } from 'koa';
import type { AppState } from '../state.js';

/**
 * Outermost middleware: one observation per request once errorHandler has settled the status.
 * The route label is the pattern the chain recorded in `ctx.state.route` (`/v1/posts/:slug`,
 * `site` for published sites), never the raw path: paths are unbounded and carry slugs.
 * Requests answered before a route ran (a body refused by jsonBody) ask `routeOf`.
 */
export function requestMetrics(
  observe: (method: string, route: string, status: number, seconds: number) => void,
  routeOf: (method: string, path: string) => string,
): Middleware<AppState> {
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const route = ctx.state.route ?? routeOf(ctx.method, ctx.path);
      observe(ctx.method, route, ctx.status, (performance.now() - started) / 1000);
    }
  };
}
