/**
 * A post's Markdown twin, `<blog>/<slug>.md`: the post as an agent reads it best, without the
 * page's HTML. The title as a `# ` heading, then the canonical URL on a line of its own (first,
 * so an agent that reads only the start still knows what to cite), then the post's Markdown
 * source as the author wrote it, its own images as absolute URLs on the blog's current origin
 * (as the API's content_md names them).
 */
import type { SiteObject } from '../../storage/siteStore.js';
import { fromMediaRefs } from '../../media/mediaRefs.js';
import { CONTENT_TYPES } from '../../domain/cacheHeaders.js';
import type { RenderContext } from './renderContext.js';
import { oneLine } from './renderLayout.js';
import { absoluteUrl, postPath, twinKey } from './renderPaths.js';
import type { SitePost } from '../../domain/siteTypes.js';

export function renderPostTwin(ctx: RenderContext, post: SitePost): SiteObject {
  const canonical = absoluteUrl(ctx.baseUrl, postPath(post.slug));
  const source = fromMediaRefs(post.contentMd, ctx.baseUrl).trim();
  // The URL in angle brackets is a link in every Markdown reader and ends unambiguously.
  const lines = [`# ${oneLine(post.title)}`, '', `Canonical: <${canonical}>`, ''];
  if (source) lines.push(source, '');
  return { key: twinKey(ctx.blog.slug, post.slug), body: lines.join('\n'), contentType: CONTENT_TYPES.markdown, cacheControl: ctx.cache.page };
}
