/**
 * Where each page lives: site-relative paths for links (percent-encoded) and store keys under
 * the blog's slug (raw Unicode, as `keyForPath` in siteServer.ts decodes request paths).
 * Directory-style pages have no trailing slash in links, matching the post URLs the API shows.
 */
import { createHash } from 'node:crypto';
import { mediaRefUrl } from '../../media/mediaRefs.js';

/** Files at the root of every blog. */
export const SITE_FILES = {
  rss: 'rss.xml',
  jsonFeed: 'feed.json',
  sitemap: 'sitemap.xml',
  robots: 'robots.txt',
  llms: 'llms.txt',
  notFound: '404.html',
} as const;

/**
 * URL-safe form of a tag that keeps Unicode letters (a Korean tag stays Korean): NFKC,
 * lower-case, whitespace → `-`, and everything but letters, marks, digits, `-` and `_` removed
 * (so `/ ? # % \ .` never reach a path). A `+` or `#` that ends a word becomes `plus` or
 * `sharp`, so that `C++`, `C#` and `C` do not share one page. A tag with nothing left gets a
 * stable `tag-<hash>` segment.
 */
export function tagSegment(tag: string): string {
  let segment = segmentCache.get(tag);
  if (segment === undefined) {
    // Blogs reuse a few dozen tags across thousands of posts; every publish asks again.
    if (segmentCache.size > 50_000) segmentCache.clear();
    segment = computeTagSegment(tag);
    segmentCache.set(tag, segment);
  }
  return segment;
}

const segmentCache = new Map<string, string>();

function computeTagSegment(tag: string): string {
  const segment = tag
    .normalize('NFKC')
    .toLowerCase()
    .trim()
    .replace(/(?<=[\p{L}\p{N}+])\+(?![\p{L}\p{N}])/gu, 'plus')
    .replace(/(?<=[\p{L}\p{N}])#(?![\p{L}\p{N}])/gu, 'sharp')
    .replace(/\s+/gu, '-')
    .replace(/[^\p{L}\p{M}\p{N}_-]+/gu, '')
    .replace(/-{2,}/g, '-')
    .replace(/^-+|-+$/g, '');
  if (segment) return segment;
  return `tag-${createHash('sha256').update(tag).digest('hex').slice(0, 8)}`;
}

export const homePath = '/';

/** What encodeSegment leaves as it is: most slugs, so a list of thousands of posts skips the encoder. */
const PLAIN_SEGMENT = /^[A-Za-z0-9\-_.~]*$/;

/**
 * One percent-encoded path segment. Beyond encodeURIComponent, `! ' ( ) *` are encoded too, so
 * a segment is also safe inside a Markdown link destination and a meta refresh URL.
 */
export function encodeSegment(segment: string): string {
  if (PLAIN_SEGMENT.test(segment)) return segment;
  return encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

export function postPath(slug: string): string {
  return `/${encodeSegment(slug)}`;
}

/** A post's Markdown twin (pages/postTwins.ts): its page's path with `.md`. */
export function twinPath(slug: string): string {
  return `${postPath(slug)}.md`;
}

export function archivePath(page: number): string {
  return `/page/${page}`;
}

export function tagPath(tag: string): string {
  return `/tags/${encodeSegment(tagSegment(tag))}`;
}

export function tagArchivePath(tag: string, page: number): string {
  return `${tagPath(tag)}/page/${page}`;
}

/** Every tag with its post count. */
export const tagIndexPath = '/tags/';
/** Years and months with their post counts. */
export const archiveIndexPath = '/archive/';
/** The search page (its index files live under it: src/search/static). */
export const searchPath = '/search/';

const twoDigits = (month: number): string => String(month).padStart(2, '0');

/** A month's posts: `/archive/2026/03/`. */
export function monthPath(year: number, month: number): string {
  return `/archive/${year}/${twoDigits(month)}/`;
}

/** A numbered page of a month of many posts (renderIndexPages.ts, MONTH_LIST_ALL_MAX): `/archive/2026/03/page/2/`. */
export function monthArchivePath(year: number, month: number, page: number): string {
  return `${monthPath(year, month)}page/${page}/`;
}

export function assetPath(fileName: string): string {
  return `/assets/${fileName}`;
}

export function filePath(name: string): string {
  return `/${name}`;
}

/** `baseUrl` (no trailing slash) + a site-relative path. */
export function absoluteUrl(baseUrl: string, path: string): string {
  return `${baseUrl}${path}`;
}

export function homeKey(blogSlug: string): string {
  return `${blogSlug}/index.html`;
}

export function postKey(blogSlug: string, postSlug: string): string {
  return `${blogSlug}/${postSlug}/index.html`;
}

/** Slugs hold no dot (services/slugs.ts), so `<slug>.md` is never another post's address. */
export function twinKey(blogSlug: string, postSlug: string): string {
  return `${blogSlug}/${postSlug}.md`;
}

/**
 * The object of an old address: a renamed post's old slug, or an alias path (`/2019/05/x/`,
 * `/2019/05/x.html`; services/aliases.ts), keyed as the site server's keyForPath maps the path.
 */
export function redirectKey(blogSlug: string, from: string): string {
  if (!from.startsWith('/')) return postKey(blogSlug, from);
  return from.endsWith('/') ? `${blogSlug}${from}index.html` : `${blogSlug}${from}`;
}

export function archiveKey(blogSlug: string, page: number): string {
  return `${blogSlug}/page/${page}/index.html`;
}

export function tagKey(blogSlug: string, tag: string): string {
  return `${blogSlug}/tags/${tagSegment(tag)}/index.html`;
}

export function tagArchiveKey(blogSlug: string, tag: string, page: number): string {
  return `${blogSlug}/tags/${tagSegment(tag)}/page/${page}/index.html`;
}

export function tagIndexKey(blogSlug: string): string {
  return `${blogSlug}/tags/index.html`;
}

export function archiveIndexKey(blogSlug: string): string {
  return `${blogSlug}/archive/index.html`;
}

export function searchKey(blogSlug: string): string {
  return `${blogSlug}/search/index.html`;
}

export function monthKey(blogSlug: string, year: number, month: number): string {
  return `${blogSlug}/archive/${year}/${twoDigits(month)}/index.html`;
}

export function monthArchiveKey(blogSlug: string, year: number, month: number, page: number): string {
  return `${blogSlug}/archive/${year}/${twoDigits(month)}/page/${page}/index.html`;
}

export function assetKey(blogSlug: string, fileName: string): string {
  return `${blogSlug}/assets/${fileName}`;
}

export function fileKey(blogSlug: string, name: string): string {
  return `${blogSlug}/${name}`;
}

/** The URL itself when it is an absolute http(s) URL, else null (no `javascript:`, no relative). */
/** A post's og_image as an http(s) URL on the blog's current origin, or null (see safeHttpUrl). */
export function postImageUrl(baseUrl: string, value: string | null | undefined): string | null {
  return safeHttpUrl(mediaRefUrl(value ?? null, baseUrl));
}

export function safeHttpUrl(value: string | null | undefined): string | null {
  if (!value) return null;
  try {
    const url = new URL(value.trim());
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}
