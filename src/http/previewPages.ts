/**
 * The public side of preview links: `/preview/<token>` on the API host, and the theme's assets
 * the page needs under `/preview/assets/`, so a preview works before the blog was ever published
 * and no blog host or CDN ever sees a token. No key and no session: the token is the permission.
 */
import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { NotFoundError } from '../domain/errors.js';
import type { ThemeAsset } from '../publish/render/assets.js';
import type { AddressRateLimiter } from '../services/addressRateLimiter.js';
import { addressRateLimit } from './middleware/addressRateLimit.js';
import type { AppState } from './state.js';

export interface PreviewPageSource {
  page(token: string, assetsBase: string): Promise<string | Buffer | null>;
  asset(fileName: string): ThemeAsset | undefined;
}

export interface PreviewPagesDeps {
  source: PreviewPageSource;
  /** Per client address: the page is public, and every guess costs a lookup. */
  limiter: AddressRateLimiter;
  trustProxyHops: number;
  /** Path the API's public base puts before `/preview` (`''`, or `/folio` behind a prefix). */
  basePath: string;
}

/**
 * Nothing of the post or the owner's header, footer or ad HTML may run here: the page shares
 * the API's origin with the dashboard. `sandbox` gives it an opaque origin besides, so even a
 * script that got through could not read that origin's cookies or call the API as the reader.
 */
const PAGE_POLICY = [
  "default-src 'none'",
  "style-src 'self' https: 'unsafe-inline'",
  'img-src * data:',
  'media-src *',
  "font-src 'self' https: data:",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  'sandbox allow-popups allow-popups-to-escape-sandbox',
].join('; ');

/** A reader opens a preview a few times; a client guessing tokens gets 60 tries a minute. */
export const PREVIEW_PAGE_LIMIT = { requests: 60, windowMs: 60_000 } as const;

/** The access log names this instead of the path: the token in it is a secret (errorHandler.ts). */
export const LOGGED_PREVIEW_PATH = '/preview/:token';

export function registerPreviewPages(router: Router<AppState>, deps: PreviewPagesDeps, named: (route: string) => Middleware<AppState>): void {
  const assetsBase = `${deps.basePath}/preview/assets`;
  const hidePath: Middleware<AppState> = (ctx, next) => {
    ctx.state.loggedPath = LOGGED_PREVIEW_PATH;
    return next();
  };

  router.get('/preview/assets/:file', named('/preview/assets/:file'), (ctx) => {
    const asset = deps.source.asset(ctx.params.file ?? '');
    if (!asset) throw new NotFoundError(`no such theme asset: ${ctx.path}`);
    // Hashed names change with their content.
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.type = asset.contentType;
    ctx.body = asset.body;
  });

  router.get('/preview/:token', hidePath, named(LOGGED_PREVIEW_PATH), addressRateLimit(deps.limiter, deps.trustProxyHops), async (ctx) => {
    const page = await deps.source.page(ctx.params.token ?? '', assetsBase);
    ctx.set('Cache-Control', 'private, no-store');
    ctx.set('X-Robots-Tag', 'noindex, nofollow');
    // The API's {error, message}, as every answer of this host: one 404 for unknown, expired,
    // revoked and deleted alike, so it tells a guesser nothing.
    if (page === null) throw new NotFoundError('this preview link does not exist, has expired or was revoked, or its post was deleted');
    ctx.set('Content-Security-Policy', PAGE_POLICY);
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = page;
  });
}
