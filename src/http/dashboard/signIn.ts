import type Router from '@koa/router';
import type { Middleware, ParameterizedContext } from 'koa';
import type { AccountPasswords } from '../../services/accountPasswords.js';
import type { AddressRateLimiter } from '../../services/addressRateLimiter.js';
import type { SessionAuth } from '../../services/authContext.js';
import type { SessionsService } from '../../services/sessions.js';
import { clientAddress } from '../clientAddress.js';
import type { AppState } from '../state.js';
import { originAllowed } from './csrf.js';
import { readForm } from './formBody.js';
import { setSessionCookie } from './sessionCookie.js';
import type { DashboardViews } from './views.js';

export const SIGN_IN_PATH = '/dashboard/sign-in';

export interface SignInDeps {
  sessions: SessionsService;
  passwords: AccountPasswords;
  /** Attempts per client address, and per email (the account's), in fixed windows. */
  limits: { perAddress: AddressRateLimiter; perAccount: AddressRateLimiter };
  trustProxyHops: number;
  publicOrigin: string;
}

const WRONG = 'The email or the password is wrong.';

/**
 * GET/POST /dashboard/sign-in: email and password. A wrong email and a wrong password give the
 * same answer after the same work (AccountPasswords.signIn); attempts are counted per client
 * address and per email before any hashing, and past either budget the page answers 429 with
 * Retry-After. The form is refused from another origin (a forged sign-in would put the victim in
 * the attacker's account).
 */
export function registerSignIn(
  router: Router<AppState>,
  deps: SignInDeps,
  views: DashboardViews,
  helpers: { named: (route: string) => Middleware<AppState>; sessionOf: (ctx: ParameterizedContext) => Promise<SessionAuth | null> },
): void {
  const secure = deps.publicOrigin.startsWith('https:');
  const page = (ctx: ParameterizedContext, status: number, email = '', error: string | null = null) =>
    views.send(ctx, status, 'signIn', { title: 'Sign in', page: 'sign-in', csrf: null }, { email, error });

  router.get(SIGN_IN_PATH, helpers.named(SIGN_IN_PATH), async (ctx) => {
    if (await helpers.sessionOf(ctx)) {
      ctx.status = 303;
      ctx.redirect('/dashboard');
      return;
    }
    page(ctx, 200);
  });

  router.post(SIGN_IN_PATH, helpers.named(SIGN_IN_PATH), async (ctx) => {
    const form = await readForm(ctx);
    const email = (form.get('email') ?? '').trim().slice(0, 320);
    const password = form.get('password') ?? '';
    if (!originAllowed(ctx, deps.publicOrigin)) {
      page(ctx, 403, email, 'This sign-in form was sent from another site; open the sign-in page and try again.');
      return;
    }
    const address = clientAddress(ctx.req, deps.trustProxyHops);
    for (const decision of [deps.limits.perAddress.hit(address), deps.limits.perAccount.hit(email.toLowerCase())]) {
      if (!decision.allowed) {
        ctx.set('Retry-After', String(decision.retryAfter));
        page(ctx, 429, email, `Too many sign-in attempts. Try again in ${Math.ceil(decision.retryAfter / 60)} minute(s).`);
        return;
      }
    }
    const account = email === '' || password === '' ? null : await deps.passwords.signIn(email, password);
    if (!account) {
      page(ctx, 401, email, WRONG);
      return;
    }
    const previous = await helpers.sessionOf(ctx);
    if (previous) await deps.sessions.end(previous.session);
    const { secret } = await deps.sessions.create(account.id, ctx.get('user-agent'));
    setSessionCookie(ctx, secret, secure);
    ctx.status = 303;
    ctx.redirect('/dashboard');
  });
}
