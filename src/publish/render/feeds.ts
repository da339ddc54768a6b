/**
 * Machine-readable files of a blog: rss.xml (RSS 2.0), feed.json (JSON Feed 1.1), robots.txt
 * and llms.txt (the sitemaps are in sitemap.ts). Pure string builders; every author value is escaped for its format.
 */
import type { SiteObject } from '../../storage/siteStore.js';
import { socialImageOf } from '../../media/mediaNames.js';
import { absoluteMediaUrls } from '../../media/mediaRefs.js';
import { FEED_SIZE, sortNewestFirst } from './archive.js';
import { detectPostLanguage, languageOf } from '../../domain/language.js';
import type { RenderContext } from './renderContext.js';
import { CONTENT_TYPES } from '../../domain/cacheHeaders.js';
import { oneLine } from './renderLayout.js';
import { SITE_FILES, absoluteUrl, fileKey, filePath, homePath, postImageUrl, postPath, twinPath } from './renderPaths.js';
import type { SitePost, SitePostSummary } from '../../domain/siteTypes.js';

const socialUrl = (url: string | null): string | null => (url ? socialImageOf(url).url : null);

type Dated = Pick<SitePostSummary, 'publishedAt' | 'updatedAt'>;

// Characters XML 1.0 forbids outright (C0 controls but tab/LF/CR, lone surrogates, U+FFFE/F):
// one of them makes the whole feed unreadable, so they are dropped.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching the control characters is the point.
const INVALID_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

export function escapeXml(text: string): string {
  return text.replace(INVALID_XML, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

/** A CDATA section holding `text`; a `]]>` inside is split across two sections. */
export function cdata(text: string): string {
  return `<![CDATA[${text.replace(INVALID_XML, '').replace(/]]>/g, ']]]]><![CDATA[>')}]]>`;
}

/** Feed readers resolve nothing: root-relative links and images in a post become absolute. */
function absoluteLinks(html: string, baseUrl: string): string {
  // srcset too for the blog's own images (its <picture>s), then every other href and src.
  return absoluteMediaUrls(html, baseUrl).replace(/(\s(?:href|src)=")\/(?!\/)/g, `$1${baseUrl}/`);
}

/** The newest publish or edit among `posts`, or `fallback` when there are none. */
export function latest(posts: readonly Dated[], fallback: string): string {
  let newest = '';
  for (const post of posts) {
    if (post.publishedAt > newest) newest = post.publishedAt;
    if (post.updatedAt > newest) newest = post.updatedAt;
  }
  return newest || fallback;
}

/** RFC 822 date as RSS 2.0 wants it: `Tue, 24 Mar 2026 10:00:00 GMT`. */
function rfc822(iso: string): string {
  return new Date(iso).toUTCString();
}

export function textObject(ctx: RenderContext, name: string, body: string, contentType: string): SiteObject {
  return { key: fileKey(ctx.blog.slug, name), body, contentType, cacheControl: ctx.cache.page };
}

function description(ctx: RenderContext): string {
  return oneLine(ctx.blog.description) || ctx.blog.name;
}

/**
 * Feeds carry a post's full HTML only up to FEED_ITEM_MAX_HTML_BYTES, and at most
 * FEED_MAX_HTML_BYTES of it in all; a post beyond either appears with its description and link.
 * Without the bound, twenty 1 MB posts (whose HTML can be five times larger) made every publish
 * in the blog re-render 100 MB of feeds on the event loop, and every reader download them.
 */
export const FEED_ITEM_MAX_HTML_BYTES = 128 * 1024;
export const FEED_MAX_HTML_BYTES = 1024 * 1024;

/** The HTML each item of the feed carries, or null for a description-only item. */
function feedHtml(items: readonly SitePost[], baseUrl: string): (string | null)[] {
  let budget = FEED_MAX_HTML_BYTES;
  return items.map((post) => {
    // An empty body also means the loader left out HTML too large for a feed (SiteRepo.newestPublished).
    if (post.contentHtml === '' || post.contentHtml.length > FEED_ITEM_MAX_HTML_BYTES) return null;
    const bytes = Buffer.byteLength(post.contentHtml, 'utf8');
    if (bytes > FEED_ITEM_MAX_HTML_BYTES || bytes > budget) return null;
    budget -= bytes;
    return absoluteLinks(post.contentHtml, baseUrl);
  });
}

/** `<blog>/rss.xml`: the newest FEED_SIZE posts, with their full HTML within the feed's bounds. */
export function renderRss(ctx: RenderContext, posts: readonly SitePost[]): SiteObject {
  const items = sortNewestFirst(posts).slice(0, FEED_SIZE);
  const html = feedHtml(items, ctx.baseUrl);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom" xmlns:content="http://purl.org/rss/1.0/modules/content/">',
    '  <channel>',
    `    <title>${escapeXml(ctx.blog.name)}</title>`,
    `    <link>${escapeXml(absoluteUrl(ctx.baseUrl, homePath))}</link>`,
    `    <description>${escapeXml(description(ctx))}</description>`,
    `    <language>${ctx.lang}</language>`,
    `    <lastBuildDate>${rfc822(latest(items, ctx.blog.updatedAt))}</lastBuildDate>`,
    '    <generator>Folio</generator>',
    `    <atom:link href="${escapeXml(absoluteUrl(ctx.baseUrl, filePath(SITE_FILES.rss)))}" rel="self" type="application/rss+xml"/>`,
  ];
  items.forEach((post, i) => {
    const url = escapeXml(absoluteUrl(ctx.baseUrl, postPath(post.slug)));
    const content = html[i];
    lines.push(
      '    <item>',
      `      <title>${escapeXml(post.title)}</title>`,
      `      <link>${url}</link>`,
      `      <guid isPermaLink="true">${url}</guid>`,
      `      <pubDate>${rfc822(post.publishedAt)}</pubDate>`,
      ...(post.metaDescription.trim() ? [`      <description>${escapeXml(oneLine(post.metaDescription))}</description>`] : []),
      ...post.tags.map((tag) => `      <category>${escapeXml(tag)}</category>`),
      ...(content === null || content === undefined ? [] : [`      <content:encoded>${cdata(content)}</content:encoded>`]),
      '    </item>',
    );
  });
  lines.push('  </channel>', '</rss>', '');
  return textObject(ctx, SITE_FILES.rss, lines.join('\n'), CONTENT_TYPES.rss);
}

/** `<blog>/feed.json`: JSON Feed 1.1 with the same posts as rss.xml. */
export function renderJsonFeed(ctx: RenderContext, posts: readonly SitePost[]): SiteObject {
  const home = absoluteUrl(ctx.baseUrl, homePath);
  const items = sortNewestFirst(posts).slice(0, FEED_SIZE);
  const html = feedHtml(items, ctx.baseUrl);
  const feed = {
    version: 'https://jsonfeed.org/version/1.1',
    title: ctx.blog.name,
    home_page_url: home,
    feed_url: absoluteUrl(ctx.baseUrl, filePath(SITE_FILES.jsonFeed)),
    description: description(ctx),
    language: ctx.lang,
    authors: [{ name: ctx.blog.name, url: home }],
    items: items.map((post, i) => {
      const url = absoluteUrl(ctx.baseUrl, postPath(post.slug));
      const image = socialUrl(postImageUrl(ctx.baseUrl, post.ogImageUrl));
      const summary = oneLine(post.metaDescription);
      const content = html[i];
      return {
        id: url,
        url,
        title: post.title,
        // JSON Feed 1.1 wants content_html or content_text in every item.
        ...(content === null || content === undefined ? { content_text: summary || post.title } : { content_html: content }),
        ...(summary ? { summary } : {}),
        ...(image ? { image } : {}),
        date_published: post.publishedAt,
        date_modified: post.updatedAt,
        tags: post.tags,
        language: post.textCounts ? languageOf(post.textCounts) : detectPostLanguage(post),
      };
    }),
  };
  return textObject(ctx, SITE_FILES.jsonFeed, `${JSON.stringify(feed, null, 2)}\n`, CONTENT_TYPES.jsonFeed);
}

/** `<blog>/robots.txt`: everything may be crawled; the sitemap lists it. */
export function renderRobots(ctx: RenderContext): SiteObject {
  const sitemap = absoluteUrl(ctx.baseUrl, filePath(SITE_FILES.sitemap));
  return textObject(ctx, SITE_FILES.robots, `User-agent: *\nAllow: /\n\nSitemap: ${sitemap}\n`, CONTENT_TYPES.text);
}

/** Text for Markdown link labels: one line, with the characters that end a label escaped. */
function markdownText(text: string): string {
  return oneLine(text).replace(/[\\[\]]/g, '\\$&');
}

/** Posts listed in llms.txt; the sitemap lists every page. */
export const LLMS_POST_COUNT = 100;

/**
 * `<blog>/llms.txt` (llmstxt.org): title, description, the newest LLMS_POST_COUNT posts (each
 * by its Markdown twin, `/<slug>.md`), then
 * links to the feeds and the sitemap. Listing every post would make each publish rewrite a
 * file that grows with the blog; the sitemap already lists everything.
 */
export function renderLlmsTxt(ctx: RenderContext, newestFirst: readonly SitePostSummary[], total: number): SiteObject {
  const lines = [`# ${oneLine(ctx.blog.name)}`];
  const blogDescription = oneLine(ctx.blog.description);
  if (blogDescription) lines.push('', `> ${blogDescription}`);
  lines.push('', total > LLMS_POST_COUNT ? `## Newest posts (${LLMS_POST_COUNT} of ${total})` : '## Posts', '');
  for (const post of newestFirst.slice(0, LLMS_POST_COUNT)) {
    // Each post links its Markdown twin, as llmstxt.org asks; the twin names the page's URL.
    const url = absoluteUrl(ctx.baseUrl, twinPath(post.slug));
    const summary = oneLine(post.metaDescription);
    lines.push(`- [${markdownText(post.title)}](${url})${summary ? `: ${summary}` : ''}`);
  }
  lines.push(
    '',
    '## Optional',
    '',
    `- [Sitemap](${absoluteUrl(ctx.baseUrl, filePath(SITE_FILES.sitemap))}): every page of the blog`,
    `- [RSS feed](${absoluteUrl(ctx.baseUrl, filePath(SITE_FILES.rss))}): the newest posts with their full text`,
  );
  return textObject(ctx, SITE_FILES.llms, `${lines.join('\n').trimEnd()}\n`, CONTENT_TYPES.text);
}
