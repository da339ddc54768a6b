/**
 * What the folder store keeps beside a body in `<root>/.meta/<key>.json`, and the headers an
 * object without it is served with.
 */

export interface Meta {
  contentType: string;
  cacheControl: string;
  redirectTo?: string;
  /** md5 of the body the metadata was written with, to detect a body of another version. */
  md5: string;
}

/**
 * The type of an object without metadata (written plain, by hand, or meta lost). JSON and XML
 * carry the charset Folio writes them with, so that the static search index's files and the
 * sitemaps are plain objects too: a publish rewrites about twenty of them, each of which would
 * otherwise be two files, two renames and two flushes.
 */
export const FALLBACK_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};
export const FALLBACK_CACHE_CONTROL = 'no-cache';

/** Whether a Cache-Control value carries the `immutable` directive. */
export const isImmutable = (cacheControl: string): boolean => cacheControl.split(',').some((directive) => directive.trim().toLowerCase() === 'immutable');

export function isMeta(value: unknown): value is Meta {
  if (typeof value !== 'object' || value === null) return false;
  const meta = value as Record<string, unknown>;
  return (
    typeof meta.contentType === 'string' &&
    typeof meta.cacheControl === 'string' &&
    typeof meta.md5 === 'string' &&
    (meta.redirectTo === undefined || typeof meta.redirectTo === 'string')
  );
}
