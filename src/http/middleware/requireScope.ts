import type { Middleware } from 'koa';
import { ForbiddenError } from '../../domain/errors.js';
import { grantOf, hasScope, type Scope } from '../../services/authContext.js';
import type { AppState } from '../state.js';

export function requireScope(scope: Scope): Middleware<AppState> {
  return async (ctx, next) => {
    if (!ctx.state.auth || !hasScope(grantOf(ctx.state.auth), scope)) {
      throw new ForbiddenError(`this API key lacks the "${scope}" scope`);
    }
    return next();
  };
}
