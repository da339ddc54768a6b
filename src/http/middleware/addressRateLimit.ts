import type { Middleware } from 'koa';
import { RateLimitError } from '../../domain/errors.js';
import type { AddressRateLimiter } from '../../services/addressRateLimiter.js';
import type { AppState } from '../state.js';
import { clientAddress } from '../clientAddress.js';

/** The budget of the request's client address (clientAddress.ts: FOLIO_TRUST_PROXY), with the X-RateLimit-* headers. */
export function addressRateLimit(limiter: AddressRateLimiter, trustProxyHops = 0): Middleware<AppState> {
  return async (ctx, next) => {
    const decision = limiter.hit(clientAddress(ctx.req, trustProxyHops));
    const headers = {
      'X-RateLimit-Limit': String(decision.limit),
      'X-RateLimit-Remaining': String(decision.remaining),
      'X-RateLimit-Reset': String(decision.reset),
    };
    ctx.set(headers);
    if (!decision.allowed) {
      throw new RateLimitError(`rate limit of ${decision.limit} requests per ${limiter.windowMs / 1000} s exceeded for this client address`, {
        retryAfter: decision.retryAfter,
        headers: { ...headers, 'Retry-After': String(decision.retryAfter) },
      });
    }
    return next();
  };
}
