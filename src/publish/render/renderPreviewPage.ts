/**
 * The page a preview link shows: the post page of the blog's theme (renderPostPage.ts), served
 * from the API host instead of the blog's. So it never depends on the blog having been published:
 * the theme's stylesheet is named on the API host, and the blog's images by their absolute URL.
 * The dashboard's live preview frame is the same page around an empty post, plus its one script.
 */
import { escapeHtml } from '../../lib/escapeHtml.js';
import { absoluteMediaUrls } from '../../media/mediaRefs.js';
import type { SitePost } from '../../domain/siteTypes.js';
import type { RenderContext } from './renderContext.js';
import { renderPostPage } from './renderPostPage.js';
import { assetPath } from './renderPaths.js';

export interface PreviewPageOptions {
  /** URL of a script the page loads (the editor's preview frame fills its content with it); a preview link has none. */
  script?: string;
}

/** `assetsBase`: absolute URL, without a trailing slash, where the theme's assets are served by file name. */
export function renderPreviewPage(ctx: RenderContext, post: SitePost, assetsBase: string, options: PreviewPageOptions = {}): string | Buffer {
  const own = assetPath(ctx.theme.stylesheet);
  const stylesheets = ctx.stylesheets.map((href) => (href === own ? `${assetsBase}/${ctx.theme.stylesheet}` : href));
  const page = renderPostPage({ ...ctx, stylesheets }, { ...post, contentHtml: absoluteMediaUrls(post.contentHtml, ctx.baseUrl) }, {}, { preview: true });
  return options.script === undefined ? page.body : withScript(page.body, options.script);
}

/**
 * The script goes in the head here rather than in the theme's layout.eta: a changed theme file
 * re-renders every blog (reRenderAfterUpgrade.ts), and published pages never carry it. The first
 * `</head>` is the layout's own: everything before it that came from the owner or the post is
 * escaped (title, meta) or has its `<` neutralised (custom CSS, JSON-LD).
 */
function withScript(page: string | Buffer, src: string): string | Buffer {
  const tag = `<script src="${escapeHtml(src)}" defer></script>\n`;
  if (typeof page === 'string') {
    const at = page.indexOf('</head>');
    if (at < 0) throw new Error('the layout printed no </head>');
    return `${page.slice(0, at)}${tag}${page.slice(at)}`;
  }
  const at = page.indexOf('</head>');
  if (at < 0) throw new Error('the layout printed no </head>');
  return Buffer.concat([page.subarray(0, at), Buffer.from(tag, 'utf8'), page.subarray(at)]);
}
