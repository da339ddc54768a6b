import type { Middleware } from 'koa';
import type { SiteStore, StoredObject } from '../storage/siteStore.js';
import type { AppState } from './state.js';

export interface SiteServerOptions {
  store: SiteStore;
  /** FOLIO_SERVICE_DOMAIN without its port: `<slug>.<serviceHost>` is a blog. */
  serviceHost: string;
  /** How long a custom-domain routing entry is cached, in ms. */
  domainTtlMs?: number;
}

const BLOG_SLUG = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** `Host` → a bare lower-case hostname: no port, no trailing dot. */
export function normalizeHost(header: string): string {
  let host = header.trim().toLowerCase();
  if (host.startsWith('[')) return host; // IPv6 literal: never a blog
  host = host.replace(/:\d*$/, '');
  return host.replace(/\.+$/, '');
}

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
 * subdomains and active custom domains. Every other host falls through to the API.
 */
export function siteServer(options: SiteServerOptions): Middleware<AppState> {
  const { store, serviceHost } = options;
  const ttl = options.domainTtlMs ?? 30_000;
  const domainCache = new Map<string, { blog: string | null; expires: number }>();

  async function blogForHost(host: string): Promise<string | null> {
    if (host.endsWith(`.${serviceHost}`)) {
      const label = host.slice(0, -(serviceHost.length + 1));
      return BLOG_SLUG.test(label) ? label : null;
    }
    if (host === serviceHost || !host.includes('.') || /^[\d.]+$/.test(host) || host.startsWith('[')) return null;
    const cached = domainCache.get(host);
    if (cached && cached.expires > Date.now()) return cached.blog;
    const entry = await store.get(`_domains/${host}`);
    const blog = entry ? entry.body.toString('utf8').trim() : null;
    const valid = blog && BLOG_SLUG.test(blog) ? blog : null;
    if (domainCache.size > 10_000) domainCache.clear();
    domainCache.set(host, { blog: valid, expires: Date.now() + ttl });
    return valid;
  }

  return async (ctx, next) => {
    const blog = await blogForHost(normalizeHost(ctx.get('host')));
    if (!blog) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.status = 405;
      ctx.set('Allow', 'GET, HEAD');
      ctx.type = 'text/plain';
      ctx.body = 'Method Not Allowed\n';
      return;
    }
    const key = keyForPath(ctx.path);
    const object = key ? await store.get(`${blog}/${key}`) : null;
    if (object?.redirectTo) {
      ctx.status = 301;
      ctx.set('Cache-Control', object.cacheControl);
      ctx.redirect(object.redirectTo);
      ctx.status = 301;
      return;
    }
    if (!object) {
      const notFound = await store.get(`${blog}/404.html`);
      ctx.status = 404;
      if (notFound) send(ctx, notFound);
      else {
        ctx.type = 'text/plain';
        ctx.body = 'Not Found\n';
      }
      ctx.status = 404;
      return;
    }
    send(ctx, object);
    if (ctx.fresh) {
      ctx.status = 304;
      ctx.body = null;
    }
  };
}

function send(ctx: Parameters<Middleware>[0], object: StoredObject): void {
  ctx.status = 200;
  ctx.set('Content-Type', object.contentType);
  ctx.set('Cache-Control', object.cacheControl);
  ctx.set('ETag', object.etag);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.body = object.body;
}
