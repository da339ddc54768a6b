import { LoginLinksService } from '../../src/services/loginLinks.js';
import { hashSecret } from '../../src/services/sessions.js';
import { SESSION_COOKIE } from '../../src/http/dashboard/sessionCookie.js';
import type { TestApp } from './testApp.js';

/**
 * A one-time sign-in link for the account (the test app's own by default), made by the service
 * `folio account login-link` uses, pointed at the test server: a Chromium page that opens it is
 * signed in (`page.goto(await loginLink(app))`).
 */
export async function loginLink(app: TestApp, accountId: string = app.accountId): Promise<string> {
  const links = new LoginLinksService({
    links: app.folio.repos.loginLinks,
    accounts: app.folio.repos.accounts,
    clock: app.clock,
    apiBaseUrl: `${app.baseUrl}/v1`,
  });
  const link = await links.create(accountId);
  if (!link) throw new Error(`no account ${accountId}`);
  return link.url;
}

/** A signed-in browser as plain HTTP sees it: the cookie to send and the page's CSRF token. */
export interface SignedIn {
  /** `folio_session=…`, for a Cookie header. */
  cookie: string;
  /** The session's secret (the cookie's value). */
  secret: string;
  /** What the dashboard's pages put in <meta name="folio-csrf">. */
  csrf: string;
  sessionId: string;
  /** Headers of a cookie-authenticated write from the dashboard's own page. */
  writeHeaders(): Record<string, string>;
}

/** Opens a sign-in link as a browser would (no redirect followed) and returns the session it set. */
export async function signIn(app: TestApp, accountId: string = app.accountId, userAgent = 'vitest'): Promise<SignedIn> {
  const res = await fetch(await loginLink(app, accountId), { redirect: 'manual', headers: { 'user-agent': userAgent } });
  if (res.status !== 303) throw new Error(`sign-in link answered ${res.status}: ${await res.text()}`);
  const setCookie = res.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`));
  if (!setCookie) throw new Error('sign-in link set no session cookie');
  const secret = setCookie.slice(SESSION_COOKIE.length + 1, setCookie.indexOf(';'));
  const found = await app.folio.repos.sessions.findByHash(hashSecret(secret));
  if (!found) throw new Error('the session cookie names no session');
  const cookie = `${SESSION_COOKIE}=${secret}`;
  const csrf = found.session.csrfToken;
  return {
    cookie,
    secret,
    csrf,
    sessionId: found.session.id,
    writeHeaders: () => ({ cookie, 'x-csrf-token': csrf, origin: app.baseUrl }),
  };
}
