import type { Middleware } from 'koa';
import { UnauthorizedError } from '../../domain/errors.js';
import type { ApiKeysService } from '../../services/apiKeys.js';
import type { SessionsService } from '../../services/sessions.js';
import { checkCsrf, isSafeMethod } from '../dashboard/csrf.js';
import { sessionSecretOf, setSessionCookie } from '../dashboard/sessionCookie.js';
import type { AppState } from '../state.js';

/** What the dashboard's session cookie needs besides the sessions: the API's public origin. */
export interface SessionAuthOptions {
  sessions: SessionsService;
  publicOrigin: string;
}

/**
 * Bearer pk_live_ key → ctx.state.auth, exactly as without sessions. Without an Authorization
 * header, the dashboard's `folio_session` cookie (docs/dashboard.md), whose writes must pass the
 * CSRF check. Neither: 401. `sessions` null (POST /mcp): keys only.
 */
export function authenticate(keys: ApiKeysService, cookies: SessionAuthOptions | null = null): Middleware<AppState> {
  return async (ctx, next) => {
    const authorization = ctx.get('authorization');
    const secret = cookies && authorization === '' ? sessionSecretOf(ctx) : '';
    if (cookies && secret !== '') {
      const found = await cookies.sessions.authenticate(secret);
      if (!found) throw new UnauthorizedError('this dashboard session has ended (signed out, revoked or expired): sign in again at /dashboard/sign-in');
      if (!isSafeMethod(ctx.method)) checkCsrf(ctx, found.auth.session, cookies.publicOrigin, ctx.get('x-csrf-token'));
      // The cookie's lifetime slides with the row's.
      if (found.renewed) setSessionCookie(ctx, secret, cookies.publicOrigin.startsWith('https:'));
      ctx.state.auth = found.auth;
      return next();
    }
    ctx.state.auth = await keys.authenticate(authorization || undefined);
    return next();
  };
}
