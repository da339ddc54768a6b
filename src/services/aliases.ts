/**
 * Post aliases: old addresses of a post (a Hugo `aliases` entry, a Jekyll `permalink` or
 * `redirect_from`) that answer 301 to it while it is published. An alias is an absolute path on
 * the blog; it is normalised to the one spelling its store object is found under, so `/a`, `/a/`,
 * `//a/` and `/a/index.html` are one alias.
 */
import { RESERVED_SLUGS } from './slugs.js';

export const MAX_ALIASES = 10;
export const MAX_ALIAS_LENGTH = 300;

/** Root files the site writes itself (sitemap chunks are `sitemap-<n>.xml`). */
const SITE_FILE = /^(index\.html|404\.html|rss\.xml|feed\.json|robots\.txt|llms\.txt|sitemap[^/]*\.xml|favicon\.[a-z]+)$/i;

export type AliasCheck = { path: string } | { problem: string };

/**
 * The normalised form of `raw` (decoded, NFC, no empty segments, a folder path ends with `/`, a
 * file path such as `/2019/05/post.html` does not), or why it cannot be an alias. Reserved site
 * paths (`/tags/…`, `/page/…`, `/rss.xml`, `/`) are refused here; paths other posts hold are the
 * service's check.
 */
export function normalizeAlias(raw: string): AliasCheck {
  if (raw.length > MAX_ALIAS_LENGTH) return { problem: `must be at most ${MAX_ALIAS_LENGTH} characters` };
  if (!raw.startsWith('/')) return { problem: 'must be an absolute path on the blog, starting with "/" (not a full URL)' };
  if (raw.includes('?') || raw.includes('#')) return { problem: 'must not have a query (?) or a fragment (#)' };
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    return { problem: 'has a broken percent-encoding' };
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses.
  if (/[\s\\\u0000-\u001f\u007f?#]/u.test(decoded)) return { problem: 'must not contain spaces, control characters, backslashes, ? or #' };
  const segments = decoded
    .normalize('NFC')
    .split('/')
    .filter((s) => s !== '');
  if (segments.some((s) => s === '.' || s === '..' || s.startsWith('.')))
    return { problem: 'must not contain "." or ".." segments or names starting with "."' };
  let folder = decoded.endsWith('/');
  if (segments[segments.length - 1] === 'index.html') {
    segments.pop();
    folder = true;
  }
  const first = segments[0];
  if (first === undefined) return { problem: "is the blog's home page" };
  if (first.startsWith('_') || RESERVED_SLUGS.has(first) || (segments.length === 1 && SITE_FILE.test(first))) {
    return { problem: `is one of the site's own paths (/${first}…)` };
  }
  // `/<slug>.md` is where a post's Markdown twin lives; an alias there would take its place.
  if (segments.length === 1 && /\.md$/i.test(first)) return { problem: `is the address of a post's Markdown twin (/${first})` };
  const last = segments[segments.length - 1]!;
  const file = !folder && last.includes('.');
  return { path: `/${segments.join('/')}${file ? '' : '/'}` };
}

/** The post slug an alias path would shadow (`/x/` is the address of post `x`), or null. */
export function slugOfAlias(path: string): string | null {
  const match = /^\/([^/]+)\/$/.exec(path);
  return match ? match[1]! : null;
}

/**
 * Every alias normalised, duplicates dropped, in the author's order; or the problems, one per
 * entry (`aliases[2]`), for a 400's `details`.
 */
export function normalizeAliases(raw: readonly string[]): { paths: string[] } | { issues: { field: string; message: string }[] } {
  const paths: string[] = [];
  const issues: { field: string; message: string }[] = [];
  raw.forEach((entry, i) => {
    const checked = normalizeAlias(entry);
    if ('problem' in checked) issues.push({ field: `aliases[${i}]`, message: checked.problem });
    else if (!paths.includes(checked.path)) paths.push(checked.path);
  });
  if (issues.length > 0) return { issues };
  if (paths.length > MAX_ALIASES) return { issues: [{ field: 'aliases', message: `must have at most ${MAX_ALIASES} entries` }] };
  return { paths };
}
