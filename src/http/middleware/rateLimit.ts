import type { Middleware } from 'koa';
import { RateLimitError } from '../../errors.js';
import type { RateLimiter } from '../../services/rateLimiter.js';
import type { AppState } from '../state.js';

/** The plan's hourly budget per account, with X-RateLimit-* headers on every response. */
export function rateLimit(limiter: RateLimiter | null): Middleware<AppState> {
  return async (ctx, next) => {
    const auth = ctx.state.auth;
    if (!limiter || !auth) return next();
    const decision = limiter.hit(auth.account.id, auth.account.plan);
    const headers = {
      'X-RateLimit-Limit': String(decision.limit),
      'X-RateLimit-Remaining': String(decision.remaining),
      'X-RateLimit-Reset': String(decision.reset),
    };
    ctx.set(headers);
    if (!decision.allowed) {
      const { retryAfter } = decision;
      throw new RateLimitError(`rate limit of ${decision.limit} requests per hour exceeded for the ${auth.account.plan} plan`, {
        retryAfter,
        headers: { ...headers, 'Retry-After': String(retryAfter) },
      });
    }
    return next();
  };
}
