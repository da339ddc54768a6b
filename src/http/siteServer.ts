import type { Middleware } from 'koa';
import { StorageError } from '../domain/errors.js';
import type { SiteStore, StoredObject } from '../storage/siteStore.js';
import type { AppState } from './state.js';
import { chooseEncoding, compressible, CompressedBodies, encodedEtag } from './siteCompression.js';
import { NO_BLOG, type HostBlog } from '../services/siteHosts.js';
import { readerRequest, type Views } from './viewBeacon.js';
import { siteOfHost } from './siteHost.js';

export interface SiteServerOptions {
  store: SiteStore;
  /**
   * The slug of the blog a (normalised, valid) host name serves, or null: its subdomain or its
   * active custom domain. Answered from the database, never the store, so a deleted blog or a
   * removed domain stops being served the moment the change commits, and a store outage cannot
   * turn API requests under foreign hosts into errors.
   */
  blogForHost: (host: string) => Promise<HostBlog>;
  /** Reader analytics (docs/analytics.md); without it the beacon is answered but nothing is counted. */
  views?: Views;
}

/** What a reader is told while the store cannot be read; the CDN or browser tries again. */
const RETRY_AFTER_SECONDS = 30;

/**
 * URL path → object key inside the blog's prefix, or null when the path may not be served.
 * `/` → `index.html`, `/post` and `/post/` → `post/index.html`, `/rss.xml` → `rss.xml`.
 */
export function keyForPath(path: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return null;
  }
  if (decoded.includes('\\') || decoded.includes('\0')) return null;
  const segments = decoded.split('/').filter((s) => s !== '');
  // Nothing may climb out of the blog's prefix or reach internal objects (_search, dotfiles).
  if (segments.some((s) => s === '..' || s === '.' || s.startsWith('.'))) return null;
  if (segments[0]?.startsWith('_')) return null;
  if (segments.length === 0) return 'index.html';
  const last = segments[segments.length - 1]!;
  return last.includes('.') && !decoded.endsWith('/') ? segments.join('/') : `${segments.join('/')}/index.html`;
}

/**
 * Serves published sites from the SiteStore by Host header (FOLIO_SERVE_SITES): blog
 * subdomains and active custom domains. Every other host falls through to the API. While the
 * store fails, readers get 503 with Retry-After, never a 500.
 */
export function siteServer(options: SiteServerOptions): Middleware<AppState> {
  const { store } = options;
  const compressed = new CompressedBodies();

  return async (ctx, next) => {
    const { host, blog } = await siteOfHost(ctx.get('host'), options.blogForHost);
    if (blog === null) return next();
    // One metrics label for every published page: paths are unbounded and name blogs.
    ctx.state.route = 'site';
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.status = 405;
      ctx.set('Allow', 'GET, HEAD');
      ctx.type = 'text/plain';
      ctx.body = 'Method Not Allowed\n';
      return;
    }
    if (blog === NO_BLOG) {
      // A blog address no blog holds (never created, or deleted): nothing of any blog is read.
      ctx.status = 404;
      ctx.type = 'text/plain';
      ctx.body = 'Not Found\n';
      return;
    }
    const key = keyForPath(ctx.path);
    let object: StoredObject | null;
    let notFound: StoredObject | null = null;
    try {
      object = key ? await store.get(`${blog}/${key}`) : null;
      if (!object) notFound = await store.get(`${blog}/404.html`);
    } catch (err) {
      if (!(err instanceof StorageError)) throw err;
      ctx.status = 503;
      ctx.set('Retry-After', String(err.retryAfter ?? RETRY_AFTER_SECONDS));
      ctx.set('Cache-Control', 'no-store');
      ctx.type = 'text/plain';
      ctx.body = 'Service Unavailable: the site store cannot be read right now.\n';
      return;
    }
    if (object?.redirectTo) {
      ctx.status = 301;
      ctx.set('Cache-Control', object.cacheControl);
      ctx.redirect(object.redirectTo);
      ctx.status = 301;
      return;
    }
    if (!object) {
      ctx.status = 404;
      if (notFound) await send(ctx, notFound, compressed);
      else {
        ctx.type = 'text/plain';
        ctx.body = 'Not Found\n';
      }
      ctx.status = 404;
      return;
    }
    await send(ctx, object, compressed);
    if (ctx.fresh) {
      ctx.status = 304;
      ctx.body = null;
    }
    if (options.views && object.contentType.startsWith('text/html')) {
      // Only the beacon counts; a page remembers where its reader came from for it.
      void options.views.pageViews.pageServed(readerRequest(ctx.req, ctx.path, blog, host, options.views.trustProxyHops));
    }
  };
}

async function send(ctx: Parameters<Middleware>[0], object: StoredObject, cache: CompressedBodies): Promise<void> {
  ctx.status = 200;
  ctx.set('Content-Type', object.contentType);
  ctx.set('Cache-Control', object.cacheControl);
  ctx.set('X-Content-Type-Options', 'nosniff');
  if (!compressible(object.contentType, object.body.length)) {
    ctx.set('ETag', object.etag);
    ctx.body = object.body;
    return;
  }
  // Caches must keep the encodings apart.
  ctx.vary('Accept-Encoding');
  const encoding = chooseEncoding(ctx.get('accept-encoding') || undefined);
  if (!encoding) {
    ctx.set('ETag', object.etag);
    ctx.body = object.body;
    return;
  }
  ctx.set('ETag', encodedEtag(object.etag, encoding));
  ctx.set('Content-Encoding', encoding);
  ctx.body = await cache.get(object.etag, object.body, encoding);
}
