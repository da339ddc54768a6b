/**
 * The view beacon of published pages (docs/analytics.md): `GET /_folio/view.gif[?p=<post slug>]`
 * on the blog's own host, answered with a 1×1 GIF that no cache keeps and that sets no cookie.
 * Under `/_`, which keyForPath never serves, so no post can take the path.
 */
import type { ParameterizedContext } from 'koa';
import type { PageViews, ReaderRequest } from '../analytics/pageViews.js';
import { clientAddress } from './clientAddress.js';
import type { AppState } from './state.js';

export const BEACON_PATH = '/_folio/view.gif';

/** A transparent 1×1 GIF, 43 bytes. */
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
const MAX_SLUG = 200;

export interface Views {
  pageViews: PageViews;
  /** FOLIO_TRUST_PROXY: proxies whose X-Forwarded-For is believed. */
  trustProxyHops: number;
}

type Ctx = ParameterizedContext<AppState>;

/** What the analytics side needs of one request on a blog's host. */
export function readerRequest(ctx: Ctx, blogSlug: string, host: string, trustProxyHops: number): ReaderRequest {
  return {
    blogSlug,
    host,
    path: ctx.path,
    method: ctx.method,
    userAgent: ctx.get('user-agent'),
    secPurpose: ctx.get('sec-purpose'),
    purpose: ctx.get('purpose'),
    xMoz: ctx.get('x-moz'),
    referer: ctx.get('referer'),
    address: clientAddress(ctx.req, trustProxyHops),
  };
}

/**
 * The post slug a beacon names, null for the blog's listing pages, or undefined for a query no
 * page of ours sends (not counted). Never an error: like every answer on a blog's host, the
 * beacon is for readers' browsers, which must never show a broken image.
 */
function beaconSlug(ctx: Ctx): string | null | undefined {
  const names = Object.keys(ctx.query);
  if (names.length === 0) return null;
  const p = ctx.query.p;
  if (names.length > 1 || typeof p !== 'string' || p === '' || p.length > MAX_SLUG) return undefined;
  return p;
}

/** Answers the beacon; counts it when it is a reader's view (GET; HEAD is answered, never counted). */
export function answerBeacon(ctx: Ctx, views: Views | undefined, blogSlug: string, host: string): void {
  const slug = beaconSlug(ctx);
  if (views && slug !== undefined) views.pageViews.beacon(readerRequest(ctx, blogSlug, host, views.trustProxyHops), slug);
  ctx.status = 200;
  ctx.set('Cache-Control', 'no-store');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.type = 'image/gif';
  ctx.body = PIXEL;
}
