import type { Middleware } from 'koa';
import { ForbiddenError } from '../../domain/errors.js';
import { hasScope, type Scope } from '../../services/authContext.js';
import type { AppState } from '../state.js';

export function requireScope(scope: Scope): Middleware<AppState> {
  return async (ctx, next) => {
    if (!ctx.state.auth || !hasScope(ctx.state.auth.key, scope)) {
      throw new ForbiddenError(`this API key lacks the "${scope}" scope`);
    }
    return next();
  };
}
