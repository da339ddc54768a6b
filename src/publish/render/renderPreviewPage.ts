/**
 * The page a preview link shows: the post page of the blog's theme (renderPostPage.ts), served
 * from the API host instead of the blog's. So it never depends on the blog having been published:
 * the theme's stylesheet is named on the API host, and the blog's images by their absolute URL.
 */
import { absoluteMediaUrls } from '../../media/mediaRefs.js';
import type { SitePost } from '../../domain/siteTypes.js';
import type { RenderContext } from './renderContext.js';
import { renderPostPage } from './renderPostPage.js';
import { assetPath } from './renderPaths.js';

/** `assetsBase`: absolute URL, without a trailing slash, where the theme's assets are served by file name. */
export function renderPreviewPage(ctx: RenderContext, post: SitePost, assetsBase: string): string | Buffer {
  const own = assetPath(ctx.theme.stylesheet);
  const stylesheets = ctx.stylesheets.map((href) => (href === own ? `${assetsBase}/${ctx.theme.stylesheet}` : href));
  const page = renderPostPage({ ...ctx, stylesheets }, { ...post, contentHtml: absoluteMediaUrls(post.contentHtml, ctx.baseUrl) }, {}, { preview: true });
  return page.body;
}
