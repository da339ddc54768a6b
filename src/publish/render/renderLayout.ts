/**
 * Wraps a page's view in the layout: head (title, description, canonical, Open Graph, Twitter
 * card, feeds, stylesheets, JSON-LD) and the site chrome with the owner's header and footer.
 */
import type { Language } from '../../domain/language.js';
import { socialImageOf } from '../../media/mediaNames.js';
import { CARD_HEIGHT, CARD_WIDTH } from '../cards/cardSpec.js';
import type { RenderContext } from './renderContext.js';
import { jsonForScript } from './renderJsonLd.js';
import { labelsFor, ogLocale, type Labels } from './renderLabels.js';
import { SITE_FILES, absoluteUrl, archiveIndexPath, searchPath, filePath, homePath, postImageUrl, tagIndexPath } from './renderPaths.js';
import type { ViewName } from './renderTheme.js';

export interface PageMeta {
  lang: Language;
  /** The `<title>`. */
  title: string;
  /** `og:title`, when it differs from the `<title>` (a post's own title). */
  ogTitle?: string;
  description: string;
  /** Site-relative canonical path; null for pages served at any address (404). */
  path: string | null;
  ogType: 'website' | 'article';
  ogImageUrl?: string | null;
  /** Absolute URL of the page's drawn card (cards/cardSpec.ts), named when `ogImageUrl` gives no image. */
  card?: string | null;
  robots?: string;
  article?: { publishedTime: string; modifiedTime: string; tags: readonly string[] };
  jsonLd?: readonly object[];
  isHome?: boolean;
  /** Site-relative path of the page's Markdown twin (a post's `/<slug>.md`), named in the head. */
  markdownPath?: string;
  /** The navigation entry this page belongs to (marked aria-current). */
  current?: 'tags' | 'archive' | 'search';
  /**
   * Whose view a load of this page is (docs/analytics.md): a post's slug, `blog` for the home
   * page; other pages have no beacon and are not counted.
   */
  counts?: { post: string } | 'blog';
}

/** The view beacon (src/http/viewBeacon.ts): a site-relative image path. */
export function beaconPath(counts: PageMeta['counts']): string | null {
  if (counts === undefined) return null;
  const base = '/_folio/view.gif';
  return counts === 'blog' ? base : `${base}?p=${encodeURIComponent(counts.post)}`;
}

/** Whitespace folded, for attribute values and feed summaries. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function headView(ctx: RenderContext, meta: PageMeta) {
  const canonical = meta.path === null ? null : absoluteUrl(ctx.baseUrl, meta.path);
  const given = postImageUrl(ctx.baseUrl, meta.ogImageUrl);
  // A given image always wins over the drawn card.
  const social = given ? socialImageOf(given) : meta.card ? { url: meta.card, width: CARD_WIDTH, height: CARD_HEIGHT } : null;
  const image = social?.url ?? null;
  return {
    title: oneLine(meta.title),
    ogTitle: oneLine(meta.ogTitle ?? meta.title),
    description: oneLine(meta.description),
    canonical,
    markdown: meta.markdownPath ? absoluteUrl(ctx.baseUrl, meta.markdownPath) : null,
    robots: meta.robots ?? null,
    siteName: ctx.blog.name,
    ogType: meta.ogType,
    locale: ogLocale(meta.lang),
    image,
    imageSize: social?.width ? { width: social.width, height: social.height } : null,
    twitterCard: image ? 'summary_large_image' : 'summary',
    article: meta.article ?? null,
    feeds: {
      title: ctx.blog.name,
      rss: absoluteUrl(ctx.baseUrl, filePath(SITE_FILES.rss)),
      json: absoluteUrl(ctx.baseUrl, filePath(SITE_FILES.jsonFeed)),
    },
    stylesheets: ctx.stylesheets,
    customCss: ctx.customCss,
    jsonLd: (meta.jsonLd ?? []).map(jsonForScript),
  };
}

/** A full HTML document: `view` rendered with `model` (plus `labels`), inside the layout. */
export function renderHtmlPage(ctx: RenderContext, meta: PageMeta, view: ViewName, model: object): string {
  const labels: Labels = labelsFor(meta.lang);
  const body = ctx.theme.render(view, { ...model, labels });
  return ctx.theme.render('layout', {
    lang: meta.lang,
    labels,
    head: headView(ctx, meta),
    site: {
      name: ctx.blog.name,
      homeHref: homePath,
      rssHref: filePath(SITE_FILES.rss),
      tagsHref: tagIndexPath,
      archiveHref: archiveIndexPath,
      searchHref: searchPath,
    },
    isHome: meta.isHome === true,
    current: meta.current ?? null,
    headerHtml: ctx.headerHtml,
    footerHtml: ctx.footerHtml,
    beacon: beaconPath(meta.counts),
    body,
  });
}
