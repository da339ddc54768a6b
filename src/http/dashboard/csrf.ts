import { timingSafeEqual } from 'node:crypto';
import type { ParameterizedContext } from 'koa';
import { ForbiddenError } from '../../domain/errors.js';
import type { Session } from '../../db/sessionsRepo.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function isSafeMethod(method: string): boolean {
  return SAFE_METHODS.has(method);
}

/**
 * What makes a cookie-authenticated write the dashboard's own (docs/dashboard.md#csrf): the
 * browser's Origin, when sent, names this API (its public origin, or the host the request was
 * sent to: another site cannot choose the Host header of a browser's request), and the request
 * carries the session's CSRF token, which only a page of this origin can read. Bearer requests
 * carry no ambient credential and skip this.
 */
export function checkCsrf(ctx: ParameterizedContext, session: Session, publicOrigin: string, sentToken: string): void {
  const origin = ctx.get('origin');
  if (origin !== '') {
    if (!sameSite(origin, publicOrigin, ctx.host))
      throw new ForbiddenError("cross-origin request refused: this session accepts writes only from the dashboard's own pages");
  } else if (ctx.get('sec-fetch-site') === 'cross-site') {
    throw new ForbiddenError("cross-site request refused: this session accepts writes only from the dashboard's own pages");
  }
  if (!tokensEqual(sentToken, session.csrfToken)) {
    throw new ForbiddenError('missing or wrong X-CSRF-Token: a signed-in browser sends the token of its page\'s <meta name="folio-csrf"> with every write');
  }
}

function sameSite(origin: string, publicOrigin: string, host: string): boolean {
  if (origin === publicOrigin) return true;
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.host === host && host !== '';
  } catch {
    // `Origin: null` (sandboxed frames, some redirects) and anything unparsable: not ours.
    return false;
  }
}

function tokensEqual(sent: string, expected: string): boolean {
  const a = Buffer.from(sent);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
