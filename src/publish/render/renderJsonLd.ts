/** schema.org data for every page type, and the one safe way to put JSON inside a `<script>`. */
import type { Language } from '../../domain/language.js';
import { socialImageOf } from '../../media/mediaNames.js';
import type { RenderContext } from './renderContext.js';
import { absoluteUrl, homePath, postImageUrl, postPath } from './renderPaths.js';
import type { SitePost } from '../../domain/siteTypes.js';

const socialUrl = (url: string | null): string | null => (url ? socialImageOf(url).url : null);

/**
 * JSON for a `<script type="application/ld+json">` element. `<`, `>` and `&` become `\u003c`,
 * `\u003e`, `\u0026` (still the same JSON string), so no author text can close the element
 * with `</script>` or open a comment; U+2028/U+2029 are escaped for old JS parsers.
 */
export function jsonForScript(value: unknown): string {
  // One pass: a month page's list of thousands of posts is escaped in each publish.
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => SCRIPT_ESCAPES[c]!);
}

const SCRIPT_ESCAPES: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/** `card` is the post's drawn card (cards/cardSpec.ts), the image when its og_image gives none. */
export function blogPostingJsonLd(ctx: RenderContext, post: SitePost, lang: Language, description: string, card: string | null = null): object {
  const url = absoluteUrl(ctx.baseUrl, postPath(post.slug));
  const home = absoluteUrl(ctx.baseUrl, homePath);
  const image = socialUrl(postImageUrl(ctx.baseUrl, post.ogImageUrl)) ?? card;
  return {
    '@context': 'https://schema.org',
    '@type': 'BlogPosting',
    headline: post.title,
    description,
    url,
    mainEntityOfPage: { '@type': 'WebPage', '@id': url },
    datePublished: post.publishedAt,
    dateModified: post.updatedAt,
    inLanguage: lang,
    ...(post.tags.length > 0 ? { keywords: post.tags } : {}),
    ...(image ? { image } : {}),
    // The data holds no author name: the blog itself is the author and publisher.
    author: { '@type': 'Organization', name: ctx.blog.name, url: home },
    publisher: { '@type': 'Organization', name: ctx.blog.name, url: home },
    isPartOf: { '@type': 'Blog', name: ctx.blog.name, url: home },
  };
}

export function breadcrumbJsonLd(ctx: RenderContext, post: SitePost): object {
  return {
    '@context': 'https://schema.org',
    '@type': 'BreadcrumbList',
    itemListElement: [
      { '@type': 'ListItem', position: 1, name: ctx.blog.name, item: absoluteUrl(ctx.baseUrl, homePath) },
      { '@type': 'ListItem', position: 2, name: post.title, item: absoluteUrl(ctx.baseUrl, postPath(post.slug)) },
    ],
  };
}

/** The home page: the blog itself. */
export function blogJsonLd(ctx: RenderContext, posts: readonly { slug: string; title: string; publishedAt: string }[]): object {
  const home = absoluteUrl(ctx.baseUrl, homePath);
  return {
    '@context': 'https://schema.org',
    '@type': 'Blog',
    name: ctx.blog.name,
    url: home,
    ...(ctx.blog.description ? { description: ctx.blog.description } : {}),
    inLanguage: ctx.lang,
    publisher: { '@type': 'Organization', name: ctx.blog.name, url: home },
    blogPost: posts.map((post) => ({
      '@type': 'BlogPosting',
      headline: post.title,
      url: absoluteUrl(ctx.baseUrl, postPath(post.slug)),
      datePublished: post.publishedAt,
    })),
  };
}

/** A list page (a tag's page, an archive page): a collection of the posts it shows, part of the blog. */
export function collectionPageJsonLd(ctx: RenderContext, name: string, path: string, posts: readonly { slug: string; title: string }[]): object {
  return {
    '@context': 'https://schema.org',
    '@type': 'CollectionPage',
    name,
    url: absoluteUrl(ctx.baseUrl, path),
    inLanguage: ctx.lang,
    isPartOf: { '@type': 'Blog', name: ctx.blog.name, url: absoluteUrl(ctx.baseUrl, homePath) },
    mainEntity: {
      '@type': 'ItemList',
      itemListElement: posts.map((post, i) => ({ '@type': 'ListItem', position: i + 1, url: absoluteUrl(ctx.baseUrl, postPath(post.slug)), name: post.title })),
    },
  };
}
