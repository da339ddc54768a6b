/**
 * GET /dashboard/blogs/:blogId/preview-frame: the page inside the editor's Preview region — the
 * blog's theme around an empty post (src/services/previewFrame.ts) — which the frame's script
 * (web/dashboard/pages/previewFrame.ts) fills with the HTML the editor sends it. A session only,
 * as every dashboard page; another account's blog is not found. `?lang=ko` renders the theme's
 * Korean labels and dates, as a Korean post's published page has them.
 */
import type Router from '@koa/router';
import type { Middleware, ParameterizedContext } from 'koa';
import { NotFoundError } from '../../domain/errors.js';
import type { SessionAuth } from '../../services/authContext.js';
import type { PreviewFrameAssets } from '../../services/previewFrame.js';
import type { AppState } from '../state.js';
import type { DashboardAssets } from './assets.js';

export const PREVIEW_FRAME_PATH = '/dashboard/blogs/:blogId/preview-frame';

export interface PreviewFrameSource {
  page(accountId: string, blogId: string, assets: PreviewFrameAssets, lang: 'ko' | 'en'): Promise<string | Buffer>;
}

export interface PreviewFrameDeps {
  source: PreviewFrameSource;
  /** Where the theme's assets are served (the preview links' `/preview/assets`). */
  assetsBase: string;
}

/**
 * The frame's own policy. The one script is named by its full URL, not `'self'`: nothing else
 * on the API host may run here. Styles may be inline (the owner's custom CSS) and from https
 * (the owner's `cssUrl`), images from anywhere (the blog's hosts, images the post names). The
 * `sandbox` repeats the iframe's attribute for a frame opened on its own: an opaque origin, so
 * even a script that got through could not use the session's cookie or call /v1.
 */
export function previewFramePolicy(scriptUrls: readonly string[]): string {
  return [
    "default-src 'none'",
    `script-src ${scriptUrls.join(' ')}`,
    "style-src 'self' https: 'unsafe-inline'",
    'img-src * data:',
    'media-src *',
    "font-src 'self' https: data:",
    "frame-ancestors 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    'sandbox allow-scripts allow-popups allow-popups-to-escape-sandbox',
  ].join('; ');
}

export function registerPreviewFrame(
  router: Router<AppState>,
  deps: PreviewFrameDeps,
  helpers: {
    named: (route: string) => Middleware<AppState>;
    sessionOf: (ctx: ParameterizedContext) => Promise<SessionAuth | null>;
    toSignIn: (ctx: ParameterizedContext) => void;
    assets: DashboardAssets;
    publicOrigin: string;
  },
): void {
  router.get(PREVIEW_FRAME_PATH, helpers.named(PREVIEW_FRAME_PATH), async (ctx) => {
    const auth = await helpers.sessionOf(ctx);
    if (!auth) return helpers.toSignIn(ctx);
    const script = helpers.assets.url('previewFrame.js');
    // Only when the editor's own entry is missing too, which the editor page already answers.
    if (script === null) throw new NotFoundError('the dashboard is not built: run npm run bundle');
    ctx.set('Cache-Control', 'private, no-store');
    // X-Robots-Tag (noindex, nofollow) and Referrer-Policy come from dashboardRoutes, as for every page.
    // The API's public origin, and the host this request was sent to as the CSRF check takes it
    // (csrf.ts): a browser that reached the dashboard under either loads the script from there.
    // Set before the page is made, so a not-found answer shows in the editor's frame too.
    const urls = new Set([`${helpers.publicOrigin}${script}`, `${ctx.protocol}://${ctx.host}${script}`]);
    ctx.set('Content-Security-Policy', previewFramePolicy([...urls]));
    // `?lang=ko`: the frame of a Korean post (the frame's script asks for it); anything else is English.
    const lang = ctx.query.lang === 'ko' ? 'ko' : 'en';
    const page = await deps.source.page(auth.account.id, ctx.params.blogId ?? '', { assetsBase: deps.assetsBase, script }, lang);
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = page;
  });
}
