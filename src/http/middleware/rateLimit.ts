import type { Middleware } from 'koa';
import { RateLimitError } from '../../domain/errors.js';
import type { RateLimiter } from '../../services/rateLimiter.js';
import { MCP_GRANT_HEADER, type McpGrants } from '../mcpGrants.js';
import type { AppState, AppContext } from '../state.js';

export interface RateLimitOptions {
  /** Requests of this budget a request costs (default 1); 0 is checked but not counted. */
  cost?: (ctx: AppContext) => number;
  /** API calls made by an MCP tool whose /mcp request was counted already (mcpGrants.ts). */
  grants?: McpGrants;
}

/** The plan's hourly budget per account, with X-RateLimit-* headers on every response. */
export function rateLimit(limiter: RateLimiter | null, options: RateLimitOptions = {}): Middleware<AppState> {
  return async (ctx, next) => {
    const auth = ctx.state.auth;
    if (!limiter || !auth) return next();
    // Only a key's requests can be an MCP tool's calls; a session's are counted like any other.
    const granted = auth.via === 'key' && (options.grants?.covers(ctx.get(MCP_GRANT_HEADER) || undefined, auth.key.id) ?? false);
    const cost = granted ? 0 : (options.cost?.(ctx as AppContext) ?? 1);
    const decision = limiter.hit(auth.account.id, auth.account.plan, cost);
    const headers = {
      'X-RateLimit-Limit': String(decision.limit),
      'X-RateLimit-Remaining': String(decision.remaining),
      'X-RateLimit-Reset': String(decision.reset),
    };
    ctx.set(headers);
    // A tool's API call belongs to a /mcp request that was admitted and counted already.
    if (!decision.allowed && !granted) {
      const { retryAfter } = decision;
      throw new RateLimitError(`rate limit of ${decision.limit} requests per hour exceeded for the ${auth.account.plan} plan`, {
        retryAfter,
        headers: { ...headers, 'Retry-After': String(retryAfter) },
      });
    }
    return next();
  };
}
