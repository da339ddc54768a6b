import Router from '@koa/router';
import type { Middleware, ParameterizedContext } from 'koa';
import type { LoginLinksService } from '../../services/loginLinks.js';
import type { SessionAuth } from '../../services/authContext.js';
import type { SessionsService } from '../../services/sessions.js';
import type { AppState } from '../state.js';
import { ASSETS_PATH, type DashboardAssets } from './assets.js';
import { checkCsrf } from './csrf.js';
import { readForm } from './formBody.js';
import { DASHBOARD_PAGES } from './pages.js';
import { clearSessionCookie, sessionSecretOf, setSessionCookie } from './sessionCookie.js';
import { dashboardPolicy, DashboardViews } from './views.js';

export interface DashboardDeps {
  sessions: SessionsService;
  loginLinks: LoginLinksService;
  assets: DashboardAssets;
  /** The API's public origin (`https://api.example.com`): cookies are Secure under https. */
  publicOrigin: string;
}

export const SIGN_IN_PATH = '/dashboard/sign-in';

/**
 * The dashboard's server side: its assets, its pages (pages.ts) and signing in and out. Runs
 * before jsonBody: the sign-in and sign-out forms are urlencoded. Pages are HTML with the strict
 * CSP of dashboardPolicy; their data comes from /v1 in the browser.
 */
export function dashboardRoutes(deps: DashboardDeps, named: (route: string) => Middleware<AppState>): Middleware<AppState> {
  const router = new Router<AppState>();
  const views = new DashboardViews(deps.assets);
  const secure = deps.publicOrigin.startsWith('https:');
  const policy = dashboardPolicy();
  const sessionOf = (ctx: ParameterizedContext): SessionAuth | null => {
    const secret = sessionSecretOf(ctx);
    return secret === '' ? null : (deps.sessions.authenticate(secret)?.auth ?? null);
  };

  router.get(`${ASSETS_PATH}:file`, named(`${ASSETS_PATH}:file`), deps.assets.serve);

  router.get(`${SIGN_IN_PATH}/:token`, named(`${SIGN_IN_PATH}/:token`), (ctx) => {
    const use = deps.loginLinks.consume(ctx.params.token ?? '');
    if (use.outcome !== 'ok') {
      const reason = use.outcome === 'used' ? 'It has been used already.' : use.outcome === 'expired' ? 'It has expired.' : 'It is not a link Folio made.';
      views.send(ctx, use.outcome === 'unknown' ? 404 : 410, 'linkUsed', { title: 'Sign-in link used', page: 'link-used', csrf: null }, { reason });
      return;
    }
    // A browser that was signed in already leaves its old session behind, ended.
    const previous = sessionOf(ctx);
    if (previous) deps.sessions.end(previous.session);
    const { secret } = deps.sessions.create(use.accountId, ctx.get('user-agent'));
    setSessionCookie(ctx, secret, secure);
    ctx.status = 303;
    ctx.redirect('/dashboard');
  });

  router.post('/dashboard/sign-out', named('/dashboard/sign-out'), async (ctx) => {
    const form = await readForm(ctx);
    const current = sessionOf(ctx);
    if (current) {
      checkCsrf(ctx, current.session, deps.publicOrigin, form.get('csrf') ?? ctx.get('x-csrf-token'));
      deps.sessions.end(current.session);
    }
    clearSessionCookie(ctx, secure);
    ctx.status = 303;
    ctx.redirect(SIGN_IN_PATH);
  });

  for (const page of DASHBOARD_PAGES) {
    router.get(page.path, named(page.path), (ctx) => {
      const auth = sessionOf(ctx);
      if (!auth) return toSignIn(ctx);
      const shell = { title: page.title, page: page.template, csrf: auth.session.csrfToken, params: { ...ctx.params }, ...(page.nav ? { nav: page.nav } : {}) };
      views.send(ctx, 200, page.template, shell, {}, page.entry);
    });
  }

  // The router's middleware takes the context it adds `params` to; Koa gives it that context.
  const routes = router.routes() as unknown as Middleware<AppState>;
  return async (ctx, next) => {
    if (ctx.path !== '/dashboard' && !ctx.path.startsWith('/dashboard/')) return next();
    // Pages carry a CSRF token and a person's data: never cached, framed or indexed.
    ctx.set('Content-Security-Policy', policy);
    ctx.set('X-Robots-Tag', 'noindex, nofollow');
    ctx.set('Cache-Control', 'no-store');
    return routes(ctx, next);
  };
}

/** A browser without a session goes to the sign-in page (303: the next request is a GET). */
function toSignIn(ctx: ParameterizedContext): void {
  ctx.status = 303;
  ctx.redirect(SIGN_IN_PATH);
}
