import Router from '@koa/router';
import type { Middleware, ParameterizedContext } from 'koa';
import type { LoginLinksService } from '../../services/loginLinks.js';
import type { SessionAuth } from '../../services/authContext.js';
import type { SessionsService } from '../../services/sessions.js';
import type { AppState } from '../state.js';
import { ASSETS_PATH, type DashboardAssets } from './assets.js';
import { checkCsrf, originAllowed } from './csrf.js';
import { ForbiddenError } from '../../domain/errors.js';
import { readForm } from './formBody.js';
import { DASHBOARD_PAGES } from './pages.js';
import { registerPreviewFrame, type PreviewFrameDeps } from './previewFrame.js';
import { clearSessionCookie, sessionSecretOf, setSessionCookie } from './sessionCookie.js';
import { dashboardPolicy, DashboardViews } from './views.js';
import { registerSignIn, SIGN_IN_PATH, type SignInDeps } from './signIn.js';

export { SIGN_IN_PATH };

export interface DashboardDeps extends SignInDeps {
  sessions: SessionsService;
  loginLinks: LoginLinksService;
  assets: DashboardAssets;
  /** The editor's preview frame (previewFrame.ts); without it the route is not there. */
  previewFrame?: PreviewFrameDeps;
}

/**
 * The dashboard's server side: its assets, its pages (pages.ts) and signing in and out. Runs
 * before jsonBody: the sign-in and sign-out forms are urlencoded. Pages are HTML with the strict
 * CSP of dashboardPolicy; their data comes from /v1 in the browser.
 */
export function dashboardRoutes(deps: DashboardDeps, named: (route: string) => Middleware<AppState>): Middleware<AppState> {
  const router = new Router<AppState>();
  const views = new DashboardViews(deps.assets);
  const secure = deps.publicOrigin.startsWith('https:');
  // Images in the editor's preview and the posts' social images live on the blogs' own hosts
  // (any subdomain or custom domain): images only, never script, so any origin may serve them.
  const policy = dashboardPolicy(['https:', 'http:']);
  const sessionOf = async (ctx: ParameterizedContext): Promise<SessionAuth | null> => {
    const secret = sessionSecretOf(ctx);
    return secret === '' ? null : ((await deps.sessions.authenticate(secret))?.auth ?? null);
  };

  router.get(`${ASSETS_PATH}:file`, named(`${ASSETS_PATH}:file`), deps.assets.serve);
  registerSignIn(router, deps, views, { named, sessionOf });
  if (deps.previewFrame) registerPreviewFrame(router, deps.previewFrame, { named, sessionOf, toSignIn, assets: deps.assets, publicOrigin: deps.publicOrigin });

  router.get(`${SIGN_IN_PATH}/:token`, named(`${SIGN_IN_PATH}/:token`), async (ctx) => {
    const use = await deps.loginLinks.consume(ctx.params.token ?? '');
    if (use.outcome !== 'ok') {
      const reason = use.outcome === 'used' ? 'It has been used already.' : use.outcome === 'expired' ? 'It has expired.' : 'It is not a link Folio made.';
      views.send(ctx, use.outcome === 'unknown' ? 404 : 410, 'linkUsed', { title: 'Sign-in link used', page: 'link-used', csrf: null }, { reason });
      return;
    }
    // A browser that was signed in already leaves its old session behind, ended.
    const previous = await sessionOf(ctx);
    if (previous) await deps.sessions.end(previous.session);
    const { secret } = await deps.sessions.create(use.accountId, ctx.get('user-agent'));
    setSessionCookie(ctx, secret, secure);
    ctx.status = 303;
    ctx.redirect('/dashboard');
  });

  router.post('/dashboard/sign-out', named('/dashboard/sign-out'), async (ctx) => {
    const form = await readForm(ctx);
    // Not even the cookie is cleared for another origin's form: that would sign people out at will.
    if (!originAllowed(ctx, deps.publicOrigin)) throw new ForbiddenError('sign-out refused: the form was sent from another site');
    const current = await sessionOf(ctx);
    if (current) {
      checkCsrf(ctx, current.session, deps.publicOrigin, form.get('csrf') ?? ctx.get('x-csrf-token'));
      await deps.sessions.end(current.session);
    }
    clearSessionCookie(ctx, secure);
    ctx.status = 303;
    ctx.redirect(SIGN_IN_PATH);
  });

  for (const page of DASHBOARD_PAGES) {
    router.get(page.path, named(page.path), async (ctx) => {
      const auth = await sessionOf(ctx);
      if (!auth) return toSignIn(ctx);
      const shell = { title: page.title, page: page.template, csrf: auth.session.csrfToken, params: { ...ctx.params }, ...(page.nav ? { nav: page.nav } : {}) };
      views.send(ctx, 200, page.template, shell, {}, page.entry);
    });
  }

  // The router's middleware takes the context it adds `params` to; Koa gives it that context.
  const routes = router.routes() as unknown as Middleware<AppState>;
  return async (ctx, next) => {
    // A person who opens the API's address in a browser is sent to the dashboard; programs
    // (no text/html in Accept) keep today's JSON answers.
    if (ctx.path === '/' && isBrowserGet(ctx)) {
      ctx.status = 303;
      ctx.redirect((await sessionOf(ctx)) ? '/dashboard' : SIGN_IN_PATH);
      return;
    }
    if (ctx.path !== '/dashboard' && !ctx.path.startsWith('/dashboard/')) return next();
    // Pages carry a CSRF token and a person's data: never cached, framed or indexed.
    ctx.set('Content-Security-Policy', policy);
    ctx.set('X-Robots-Tag', 'noindex, nofollow');
    ctx.set('Cache-Control', 'no-store');
    // The API's no-referrer would make Chromium send `Origin: null` with the pages' own form
    // posts; same-origin keeps their Origin for the CSRF check and still tells other sites nothing.
    ctx.set('Referrer-Policy', 'same-origin');
    return routes(ctx, async () => {
      // No dashboard route: a browser without a session signs in first; the rest get the 404.
      if (isBrowserGet(ctx) && !ctx.path.startsWith(ASSETS_PATH) && !(await sessionOf(ctx))) return toSignIn(ctx);
      return next();
    });
  };
}

function isBrowserGet(ctx: ParameterizedContext): boolean {
  return (ctx.method === 'GET' || ctx.method === 'HEAD') && ctx.get('accept').includes('text/html');
}

/** A browser without a session goes to the sign-in page (303: the next request is a GET). */
function toSignIn(ctx: ParameterizedContext): void {
  ctx.status = 303;
  ctx.redirect(SIGN_IN_PATH);
}
