/** A post's own page: `<blog>/<post>/index.html`. */
import type { SiteObject } from '../storage/siteStore.js';
import { countPostText, languageOf } from './language.js';
import { minutesFromCounts } from './readingTime.js';
import type { RenderContext } from './renderContext.js';
import { CACHE_CONTROL_PAGE, CONTENT_TYPES } from './renderHeaders.js';
import { blogPostingJsonLd, breadcrumbJsonLd } from './renderJsonLd.js';
import { labelsFor } from './renderLabels.js';
import { renderHtmlPage } from './renderLayout.js';
import { postKey, postPath, tagPath } from './renderPaths.js';
import type { SitePost } from './siteTypes.js';

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

export function renderPostPage(ctx: RenderContext, post: SitePost, neighbours: PostNeighbours = {}): SiteObject {
  // One pass over the text gives both the language and the reading time.
  const counts = post.textCounts ?? countPostText(post);
  const lang = languageOf(counts);
  const labels = labelsFor(lang);
  const description = post.metaDescription.trim() || ctx.blog.description || ctx.blog.name;
  // Show an update only when it happened on a later day than the publication.
  const updatedDay = post.updatedAt.slice(0, 10) > post.publishedAt.slice(0, 10);
  const html = renderHtmlPage(
    ctx,
    {
      lang,
      title: `${post.title} · ${ctx.blog.name}`,
      ogTitle: post.title,
      description,
      path: postPath(post.slug),
      ogType: 'article',
      ogImageUrl: post.ogImageUrl,
      article: { publishedTime: post.publishedAt, modifiedTime: post.updatedAt, tags: post.tags },
      jsonLd: [blogPostingJsonLd(ctx, post, lang, description), breadcrumbJsonLd(ctx, post)],
    },
    'post',
    {
      title: post.title,
      published: { iso: post.publishedAt, text: labels.formatDate(post.publishedAt) },
      updated: updatedDay ? { iso: post.updatedAt, text: labels.formatDate(post.updatedAt) } : null,
      readingTime: labels.readingTime(minutesFromCounts(counts)),
      tags: post.tags.map((tag) => ({ name: tag, href: tagPath(tag) })),
      contentHtml: post.contentHtml.trim(),
      adHtml: ctx.adCode.trim(),
      newer: link(neighbours.newer),
      older: link(neighbours.older),
    },
  );
  return { key: postKey(ctx.blog.slug, post.slug), body: html, contentType: CONTENT_TYPES.html, cacheControl: CACHE_CONTROL_PAGE };
}
