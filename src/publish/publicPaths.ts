/**
 * The public URL paths readers reach a stored object under: the inverse of the site server's
 * keyForPath (src/http/siteServer.ts) and of the shipped edge configurations. A CDN caches by
 * the URL a reader asked for, so a page is purged under each of its addresses.
 */
import { encodeSegment } from './render/renderPaths.js';
import { TimeSlice } from '../lib/timeSlice.js';

/** `<blog>/index.html` → `/`; `<blog>/x/index.html` → `/x`, `/x/`; `<blog>/rss.xml` → `/rss.xml`. */
export function publicPaths(blogSlug: string, key: string): string[] {
  const prefix = `${blogSlug}/`;
  if (!key.startsWith(prefix)) return [];
  const rest = key.slice(prefix.length);
  // The search index and other internal objects are never served to readers.
  if (rest.startsWith('_')) return [];
  if (rest === 'index.html') return ['/'];
  const segments = rest.split('/').map(encodeSegment);
  if (rest.endsWith('/index.html')) {
    const folder = `/${segments.slice(0, -1).join('/')}`;
    return [folder, `${folder}/`];
  }
  return [`/${segments.join('/')}`];
}

/** The paths of many keys, each once. */
export function publicPathsOf(blogSlug: string, keys: readonly string[]): string[] {
  return [...new Set(keys.flatMap((key) => publicPaths(blogSlug, key)))];
}

/**
 * publicPathsOf for every key of a blog (a whole-blog purge), yielding to the event loop every
 * few milliseconds: a large blog has tens of thousands of keys.
 */
export async function allPublicPathsOf(blogSlug: string, keys: readonly string[]): Promise<string[]> {
  const paths = new Set<string>();
  const slice = new TimeSlice(8);
  for (const key of keys) {
    for (const path of publicPaths(blogSlug, key)) paths.add(path);
    if (slice.over) await slice.next();
  }
  return [...paths];
}
