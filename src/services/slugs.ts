/** Post slugs: lower-case letters and digits of any script, in runs joined by single hyphens. */

export const SLUG_PATTERN = '^[\\p{Ll}\\p{Lo}\\p{Nd}]+(-[\\p{Ll}\\p{Lo}\\p{Nd}]+)*$';

/**
 * SLUG_PATTERN as published (OpenAPI, MCP tool schemas): `\p{…}` classes are ECMA-262 with the
 * `u` flag only, and Python's `re` (so its `jsonschema`) cannot compile them. This one uses
 * escapes every regex dialect takes and admits every slug SLUG_PATTERN does: exact on ASCII
 * (lower-case letters and digits), any other character but white space and controls beyond it.
 * The server still validates with SLUG_PATTERN.
 */
export const PORTABLE_SLUG_PATTERN = '^[^\\x00-\\x2F\\x3A-\\x60\\x7B-\\x9F\\s]+(-[^\\x00-\\x2F\\x3A-\\x60\\x7B-\\x9F\\s]+)*$';
const SLUG_RE = new RegExp(SLUG_PATTERN, 'u');
export const MAX_SLUG_LENGTH = 100;

/** Blog slugs are DNS labels (they become `<slug>.<service domain>`). */
export const BLOG_SLUG_PATTERN = '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$';

/** Paths the site itself uses; a post there would shadow them. */
export const RESERVED_SLUGS = new Set([
  'page',
  'tags',
  'archive',
  'search',
  'assets',
  'media',
  'rss.xml',
  'feed.json',
  'sitemap.xml',
  'robots.txt',
  'llms.txt',
  '404',
  '_search',
  '_domains',
]);

export function isValidSlug(slug: string): boolean {
  return slug.length > 0 && slug.length <= MAX_SLUG_LENGTH && SLUG_RE.test(slug);
}

export function isReservedSlug(slug: string): boolean {
  return RESERVED_SLUGS.has(slug);
}

/**
 * Title → slug that keeps Unicode letters and digits (a Korean title gives a Korean slug),
 * lower-cased, words joined by `-`, at most 100 characters, cut at a word boundary.
 */
export function slugify(title: string): string {
  const words = title
    .normalize('NFKC')
    .toLowerCase()
    .split(/[^\p{Ll}\p{Lo}\p{Nd}]+/u)
    .filter(Boolean);
  let slug = '';
  for (const word of words) {
    const next = slug ? `${slug}-${word}` : word;
    if (next.length > MAX_SLUG_LENGTH) {
      if (!slug) slug = Array.from(word).slice(0, MAX_SLUG_LENGTH).join('').slice(0, MAX_SLUG_LENGTH);
      break;
    }
    slug = next;
  }
  return slug || 'post';
}

/** `base`, then `base-2`, `base-3`, … until `isFree` accepts one; reserved bases start at -2. */
export function firstFreeSlug(base: string, isFree: (slug: string) => boolean): string {
  if (!isReservedSlug(base) && isFree(base)) return base;
  for (let n = 2; ; n += 1) {
    const suffix = `-${n}`;
    const candidate = `${base.slice(0, MAX_SLUG_LENGTH - suffix.length).replace(/-+$/, '')}${suffix}`;
    if (isFree(candidate)) return candidate;
  }
}
