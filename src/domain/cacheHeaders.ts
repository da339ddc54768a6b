/** Content types and Cache-Control values of rendered objects (docs/publishing.md). */

/**
 * HTML, feeds and text files change on publish: browsers revalidate after a minute, a CDN keeps
 * them five minutes and may serve a stale copy for a day while it refetches, so a slow or
 * failing origin never takes the site down. Without a purger Folio cannot tell a cache that a
 * page changed, so this bounds how long an edit or a removal stays invisible.
 */
export const CACHE_CONTROL_PAGE = 'public, max-age=60, s-maxage=300, stale-while-revalidate=86400';
/**
 * With a CDN purger every publish invalidates what it changed at the edge, so the edge may keep
 * pages a day (a purge ends that at once); browsers, which no purge reaches, still revalidate
 * after a minute. No stale-while-revalidate: after a purge nothing stale may be served.
 */
export const CACHE_CONTROL_PAGE_PURGED = 'public, max-age=60, s-maxage=86400';

/** Cache-Control of the pages a render produces (assets are always immutable). */
export interface CachePolicy {
  readonly page: string;
}

export function cachePolicy(purged: boolean): CachePolicy {
  return { page: purged ? CACHE_CONTROL_PAGE_PURGED : CACHE_CONTROL_PAGE };
}
/** Assets carry a content hash in their names, so a name never gets new content. */
export const CACHE_CONTROL_ASSET = 'public, max-age=31536000, immutable';

export const CONTENT_TYPES = {
  html: 'text/html; charset=utf-8',
  rss: 'application/rss+xml; charset=utf-8',
  jsonFeed: 'application/feed+json; charset=utf-8',
  xml: 'application/xml; charset=utf-8',
  text: 'text/plain; charset=utf-8',
  markdown: 'text/markdown; charset=utf-8',
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  svg: 'image/svg+xml',
  woff2: 'font/woff2',
  png: 'image/png',
  ico: 'image/x-icon',
} as const;
