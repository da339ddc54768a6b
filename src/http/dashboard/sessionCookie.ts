import type { ParameterizedContext } from 'koa';
import { SESSION_LIFETIME_MS } from '../../services/sessions.js';

/** The dashboard's session cookie: its secret, hashed, names a row of `sessions`. */
export const SESSION_COOKIE = 'folio_session';

/** The session cookie's value, or '' when the request has none. */
export function sessionSecretOf(ctx: ParameterizedContext): string {
  const header = ctx.get('cookie');
  if (header === '') return '';
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim();
  }
  return '';
}

/**
 * HttpOnly (page scripts never read it), SameSite=Lax (other sites' subrequests and form posts
 * do not carry it), Path=/ (the dashboard and /v1 share it), Secure when the API is served over
 * https. Set by hand rather than with ctx.cookies: behind a TLS-terminating proxy Koa sees http
 * and would refuse a Secure cookie.
 */
export function setSessionCookie(ctx: ParameterizedContext, secret: string, secure: boolean): void {
  ctx.append('Set-Cookie', cookie(secret, Math.floor(SESSION_LIFETIME_MS / 1000), secure));
}

export function clearSessionCookie(ctx: ParameterizedContext, secure: boolean): void {
  ctx.append('Set-Cookie', cookie('', 0, secure));
}

function cookie(value: string, maxAge: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${value}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}
