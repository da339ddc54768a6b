/** A post's own page: `<blog>/<post>/index.html`. */
import { enhancePostHtml, type Heading } from './postHtml.js';
import { randomBytes } from 'node:crypto';
import type { SiteObject } from '../../storage/siteStore.js';
import { countPostText, languageOf } from '../../domain/language.js';
import { minutesFromCounts } from '../../domain/readingTime.js';
import { postCardUrl } from '../cards/cardSpec.js';
import type { RenderContext } from './renderContext.js';
import { CONTENT_TYPES } from '../../domain/cacheHeaders.js';
import { blogPostingJsonLd, breadcrumbJsonLd } from './renderJsonLd.js';
import { labelsFor } from './renderLabels.js';
import { renderHtmlPage } from './renderLayout.js';
import { postKey, postPath, tagPath, twinPath } from './renderPaths.js';
import type { SitePost } from '../../domain/siteTypes.js';

export interface PostLink {
  slug: string;
  title: string;
}

/** The posts published just after (`newer`) and just before (`older`) this one. */
export interface PostNeighbours {
  newer?: PostLink | null;
  older?: PostLink | null;
}

const link = (post: PostLink | null | undefined) => (post ? { href: postPath(post.slug), title: post.title } : null);

/** One entry of a post's contents list: an h2, with the h3s under it nested as its children. */
export interface TocEntry {
  text: string;
  href: string;
  children: TocEntry[];
}

/**
 * Headings → a nested contents list, so screen readers hear the sections' structure and the
 * numbering counts sections only. An h3 before any h2 stands on the top level.
 */
export function tocOf(headings: readonly Heading[]): TocEntry[] {
  const top: TocEntry[] = [];
  let section: TocEntry | null = null;
  for (const h of headings) {
    const entry: TocEntry = { text: h.text, href: `#${encodeURIComponent(h.id)}`, children: [] };
    if (h.level === 3 && section) section.children.push(entry);
    else {
      top.push(entry);
      if (h.level === 2) section = entry;
    }
  }
  return top;
}

/**
 * Post HTML from this size on is spliced into the page as bytes instead of through the template.
 * The template's text (labels, `·`) makes the page a two-byte string, and widening then encoding
 * a large post that way holds the event loop; encoding the post's one-byte HTML on its own and
 * joining three buffers is much cheaper. The bytes are the same either way.
 */
const SPLICE_MIN_CHARS = 64 * 1024;
const TOC_MIN_HEADINGS = 3;
/** Never part of any page: random per process, and written only where the post's HTML goes. */
const CONTENT_MARKER = `\u{E000}folio-content-${randomBytes(12).toString('hex')}\u{E000}`;

/**
 * `preview`: the page a preview link shows (src/services/previewLinks.ts) — never indexed, never
 * counted, and at no address of its own (no canonical, no Markdown twin), since the post may be
 * a draft the blog does not have.
 */
export interface PostPageMode {
  preview?: boolean;
}

export function renderPostPage(ctx: RenderContext, post: SitePost, neighbours: PostNeighbours = {}, mode: PostPageMode = {}): SiteObject {
  // One pass over the text gives both the language and the reading time.
  const counts = post.textCounts ?? countPostText(post);
  const lang = languageOf(counts);
  const labels = labelsFor(lang);
  const description = post.metaDescription.trim() || ctx.blog.description || ctx.blog.name;
  // Show an update only when it happened on a later day than both the publication and the
  // creation: a post moved over today with its old date (folio push) was not updated today.
  const updatedDay =
    post.updatedAt.slice(0, 10) >
    [post.publishedAt, post.createdAt]
      .map((at) => at.slice(0, 10))
      .sort()
      .at(-1)!;
  const { html: contentHtml, headings } = enhancePostHtml(post.contentHtml.trim());
  // A table of contents is worth its space from three headings on.
  const toc = headings.length >= TOC_MIN_HEADINGS ? tocOf(headings) : [];
  const splice = contentHtml.length >= SPLICE_MIN_CHARS;
  const card = postCardUrl(ctx.blog, ctx.baseUrl, post);
  const html = renderHtmlPage(
    ctx,
    {
      lang,
      title: `${post.title} · ${ctx.blog.name}`,
      ogTitle: post.title,
      description,
      ...(mode.preview
        ? { path: null, robots: 'noindex, nofollow' }
        : { path: postPath(post.slug), markdownPath: twinPath(post.slug), counts: { post: post.slug } }),
      ogType: 'article',
      ogImageUrl: post.ogImageUrl,
      card,
      article: { publishedTime: post.publishedAt, modifiedTime: post.updatedAt, tags: post.tags },
      jsonLd: [blogPostingJsonLd(ctx, post, lang, description, card), breadcrumbJsonLd(ctx, post)],
    },
    'post',
    {
      title: post.title,
      published: { iso: post.publishedAt, text: labels.formatDate(post.publishedAt) },
      updated: updatedDay ? { iso: post.updatedAt, text: labels.formatDate(post.updatedAt) } : null,
      readingTime: labels.readingTime(minutesFromCounts(counts)),
      tags: post.tags.map((tag) => ({ name: tag, href: tagPath(tag) })),
      contentHtml: splice ? CONTENT_MARKER : contentHtml,
      toc,
      adHtml: ctx.adCode.trim(),
      newer: link(neighbours.newer),
      older: link(neighbours.older),
    },
  );
  const body = splice ? spliceContent(html, contentHtml) : html;
  return { key: postKey(ctx.blog.slug, post.slug), body, contentType: CONTENT_TYPES.html, cacheControl: ctx.cache.page };
}

function spliceContent(page: string, contentHtml: string): Buffer {
  const at = page.indexOf(CONTENT_MARKER);
  if (at < 0) throw new Error('the post view did not print it.contentHtml');
  return Buffer.concat([Buffer.from(page.slice(0, at), 'utf8'), Buffer.from(contentHtml, 'utf8'), Buffer.from(page.slice(at + CONTENT_MARKER.length), 'utf8')]);
}
