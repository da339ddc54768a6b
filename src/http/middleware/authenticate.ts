import type { Middleware } from 'koa';
import type { ApiKeysService } from '../../services/apiKeys.js';
import type { AppState } from '../state.js';

/** Bearer pk_live_ key → ctx.state.auth, or 401. */
export function authenticate(keys: ApiKeysService): Middleware<AppState> {
  return async (ctx, next) => {
    ctx.state.auth = keys.authenticate(ctx.get('authorization') || undefined);
    return next();
  };
}
