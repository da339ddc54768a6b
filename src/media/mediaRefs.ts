/**
 * How a post names its blog's own images in what is stored, without the host.
 *
 * Authors paste the absolute URL an upload answered (`https://<blog>.<service domain>/media/…`).
 * Stored as sent, every such URL broke when the operator changed FOLIO_SERVICE_DOMAIN, a blog
 * took a custom domain or changed its slug: the stored text kept naming the old host. So a post's
 * Markdown and og_image are stored with the blog's own media URLs as `folio-media:<name>`, and
 * every reader puts the current origin back:
 *
 * - the API and exports answer absolute URLs on the blog's current origin (what was sent, on
 *   today's host);
 * - the rendered HTML (content_html, and so the pages) names them root-relative, `/media/<name>`,
 *   which resolves on every host the blog is served from; feeds and the API make them absolute.
 *
 * Only URLs of the blog's current hosts are rewritten on write: another blog's or another
 * site's images stay exactly as written.
 */
import { MEDIA_DIR } from './mediaNames.js';

/** What stands for `<origin>/media/` in stored Markdown and og_image. */
export const MEDIA_REF = 'folio-media:';

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A host of `https://host[:port]` or `host[:port]`, lowercased. */
function hostOf(originOrHost: string): string {
  return originOrHost
    .replace(/^[a-z]+:\/\//i, '')
    .replace(/\/+$/, '')
    .toLowerCase();
}

/**
 * `text` with every `http(s)://<one of hosts>/media/` replaced by MEDIA_REF. `hosts` are the
 * blog's origins (or bare hosts); the scheme does not matter, the host's case does not either.
 */
export function toMediaRefs(text: string, hosts: readonly string[]): string {
  if (hosts.length === 0 || !text.includes(`/${MEDIA_DIR}/`)) return text;
  const alternatives = [...new Set(hosts.map(hostOf))].map(escapeRegExp).join('|');
  return text.replace(new RegExp(`https?://(?:${alternatives})/${MEDIA_DIR}/`, 'gi'), MEDIA_REF);
}

/** Stored text with its media references as absolute URLs on `origin` (no trailing slash). */
export function fromMediaRefs(text: string, origin: string): string {
  return text.includes(MEDIA_REF) ? text.replaceAll(MEDIA_REF, `${origin}/${MEDIA_DIR}/`) : text;
}

/** Nullable og_image form of fromMediaRefs. */
export function mediaRefUrl(value: string | null, origin: string): string | null {
  return value === null ? null : fromMediaRefs(value, origin);
}

/** Stored Markdown as the renderer takes it: media references become root-relative paths. */
export function mediaRefsAsPaths(markdown: string): string {
  return markdown.includes(MEDIA_REF) ? markdown.replaceAll(MEDIA_REF, `/${MEDIA_DIR}/`) : markdown;
}

const MEDIA_ATTRIBUTE = new RegExp(`(\\s(?:src|href|srcset)=")([^"]*\\/${MEDIA_DIR}\\/[^"]*)"`, 'g');
const ROOT_MEDIA_PATH = new RegExp(`(^|,\\s*)\\/${MEDIA_DIR}\\/`, 'g');

/**
 * Rendered HTML with its root-relative `/media/…` URLs (in src, href and srcset) made absolute
 * on `origin`: for readers away from the blog (the API, feeds).
 */
export function absoluteMediaUrls(html: string, origin: string): string {
  if (!html.includes(`"/${MEDIA_DIR}/`) && !html.includes(`, /${MEDIA_DIR}/`)) return html;
  return html.replace(MEDIA_ATTRIBUTE, (_whole, head: string, value: string) => `${head}${value.replace(ROOT_MEDIA_PATH, `$1${origin}/${MEDIA_DIR}/`)}"`);
}
