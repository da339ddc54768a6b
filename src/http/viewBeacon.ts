/**
 * The view beacon of published pages (docs/analytics.md): `GET /_folio/view.gif[?p=<post slug>]`
 * on the blog's own host, answered with a 1×1 GIF that no cache keeps and that sets no cookie.
 * Under `/_`, which keyForPath never serves, so no post can take the path.
 *
 * It is answered in front of the Koa app, on the bare node:http request: every page load sends
 * one, so at a busy blog beacons outnumber every other request, and the middleware chain
 * (request ids, access log, security headers) would cost several times the counting itself.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { PageViews, ReaderRequest } from '../analytics/pageViews.js';
import { NO_BLOG, type HostBlog } from '../services/siteHosts.js';
import { clientAddress } from './clientAddress.js';
import { requestIdFor } from './middleware/errorHandler.js';
import { siteOfHost } from './siteHost.js';

export const BEACON_PATH = '/_folio/view.gif';

/** A transparent 1×1 GIF, 42 bytes. */
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
const PIXEL_HEADERS = {
  'Content-Type': 'image/gif',
  'Content-Length': String(PIXEL.length),
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
} as const;
const MAX_SLUG = 200;

export interface Views {
  pageViews: PageViews;
  /** FOLIO_TRUST_PROXY: proxies whose X-Forwarded-For is believed. */
  trustProxyHops: number;
}

const header = (req: IncomingMessage, name: string): string => {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : (value ?? '');
};

/** What the analytics side needs of one request on a blog's host. */
export function readerRequest(req: IncomingMessage, path: string, blogSlug: string, host: string, trustProxyHops: number): ReaderRequest {
  return {
    blogSlug,
    host,
    path,
    method: req.method ?? '',
    userAgent: header(req, 'user-agent'),
    secPurpose: header(req, 'sec-purpose'),
    purpose: header(req, 'purpose'),
    xMoz: header(req, 'x-moz'),
    referer: header(req, 'referer'),
    address: clientAddress(req, trustProxyHops),
  };
}

/**
 * The post slug a beacon's query names, null for the blog's listing pages (no query), or
 * undefined for a query no page of ours sends (not counted). Never an error: like every answer
 * on a blog's host, the beacon is for readers' browsers, which must never show a broken image.
 */
export function beaconSlug(query: string): string | null | undefined {
  if (query === '') return null;
  const params = new URLSearchParams(query);
  const names = new Set(params.keys());
  const values = params.getAll('p');
  if (names.size !== 1 || values.length !== 1) return undefined;
  const p = values[0]!;
  return p === '' || p.length > MAX_SLUG ? undefined : p;
}

/**
 * Answers beacons on blog hosts before `next` (the Koa app) sees them; every other request,
 * and a beacon path on a host that serves no blog, goes on to `next` unchanged.
 */
export function withViewBeacon(next: RequestListener, deps: { views: Views; blogForHost: (host: string) => Promise<HostBlog> }): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '';
    const method = req.method ?? '';
    if (!url.startsWith(BEACON_PATH) || (method !== 'GET' && method !== 'HEAD')) return next(req, res);
    const queryAt = BEACON_PATH.length;
    if (url.length > queryAt && url[queryAt] !== '?') return next(req, res);
    void siteOfHost(header(req, 'host'), deps.blogForHost).then(
      ({ host, blog }) => {
        if (blog === null || blog === NO_BLOG) return next(req, res);
        const slug = beaconSlug(url.slice(queryAt + 1));
        // Counted after the answer's bytes are on their way; the reader never waits for the count.
        if (slug !== undefined) void deps.views.pageViews.beacon(readerRequest(req, BEACON_PATH, blog, host, deps.views.trustProxyHops), slug);
        res.writeHead(200, { ...PIXEL_HEADERS, 'X-Request-Id': requestIdFor(header(req, 'x-request-id')) });
        res.end(method === 'HEAD' ? undefined : PIXEL);
      },
      // The lookup failed (the database cannot answer): the app answers, as it does any request it cannot serve now.
      () => next(req, res),
    );
  };
}
