/**
 * Machine-readable files of a blog: rss.xml (RSS 2.0), feed.json (JSON Feed 1.1), sitemap.xml,
 * robots.txt and llms.txt. Pure string builders; every author value is escaped for its format.
 */
import type { SiteObject } from '../storage/siteStore.js';
import { ARCHIVE_PAGE_SIZE, FEED_SIZE, HOME_PAGE_SIZE, archivePageCount, archivePageSlice, collectTags, sortNewestFirst, sortOldestFirst } from './archive.js';
import { detectPostLanguage } from './language.js';
import type { RenderContext } from './renderContext.js';
import { CACHE_CONTROL_PAGE, CONTENT_TYPES } from './renderHeaders.js';
import { oneLine } from './renderLayout.js';
import { SITE_FILES, absoluteUrl, archivePath, fileKey, filePath, homePath, postPath, safeHttpUrl, tagPath } from './renderPaths.js';
import type { SitePost, SitePostSummary } from './siteTypes.js';

type Dated = Pick<SitePostSummary, 'publishedAt' | 'updatedAt'>;

// Characters XML 1.0 forbids outright (C0 controls but tab/LF/CR, lone surrogates, U+FFFE/F):
// one of them makes the whole feed unreadable, so they are dropped.
// eslint-disable-next-line no-control-regex
const INVALID_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

export function escapeXml(text: string): string {
  return text
    .replace(INVALID_XML, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** A CDATA section holding `text`; a `]]>` inside is split across two sections. */
export function cdata(text: string): string {
  return `<![CDATA[${text.replace(INVALID_XML, '').replace(/]]>/g, ']]]]><![CDATA[>')}]]>`;
}

/** Feed readers resolve nothing: root-relative links and images in a post become absolute. */
function absoluteLinks(html: string, baseUrl: string): string {
  return html.replace(/(\s(?:href|src)=")\/(?!\/)/g, `$1${baseUrl}/`);
}

function latest(posts: readonly Dated[], fallback: string): string {
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

function textObject(ctx: RenderContext, name: string, body: string, contentType: string): SiteObject {
  return { key: fileKey(ctx.blog.slug, name), body, contentType, cacheControl: CACHE_CONTROL_PAGE };
}

function description(ctx: RenderContext): string {
  return oneLine(ctx.blog.description) || ctx.blog.name;
}

/** `<blog>/rss.xml`: the newest FEED_SIZE posts with their full HTML. */
export function renderRss(ctx: RenderContext, posts: readonly SitePost[]): SiteObject {
  const items = sortNewestFirst(posts).slice(0, FEED_SIZE);
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
  for (const post of items) {
    const url = escapeXml(absoluteUrl(ctx.baseUrl, postPath(post.slug)));
    lines.push(
      '    <item>',
      `      <title>${escapeXml(post.title)}</title>`,
      `      <link>${url}</link>`,
      `      <guid isPermaLink="true">${url}</guid>`,
      `      <pubDate>${rfc822(post.publishedAt)}</pubDate>`,
      ...(post.metaDescription.trim() ? [`      <description>${escapeXml(oneLine(post.metaDescription))}</description>`] : []),
      ...post.tags.map((tag) => `      <category>${escapeXml(tag)}</category>`),
      `      <content:encoded>${cdata(absoluteLinks(post.contentHtml, ctx.baseUrl))}</content:encoded>`,
      '    </item>',
    );
  }
  lines.push('  </channel>', '</rss>', '');
  return textObject(ctx, SITE_FILES.rss, lines.join('\n'), CONTENT_TYPES.rss);
}

/** `<blog>/feed.json`: JSON Feed 1.1 with the same posts as rss.xml. */
export function renderJsonFeed(ctx: RenderContext, posts: readonly SitePost[]): SiteObject {
  const home = absoluteUrl(ctx.baseUrl, homePath);
  const feed = {
    version: 'https://jsonfeed.org/version/1.1',
    title: ctx.blog.name,
    home_page_url: home,
    feed_url: absoluteUrl(ctx.baseUrl, filePath(SITE_FILES.jsonFeed)),
    description: description(ctx),
    language: ctx.lang,
    authors: [{ name: ctx.blog.name, url: home }],
    items: sortNewestFirst(posts)
      .slice(0, FEED_SIZE)
      .map((post) => {
        const url = absoluteUrl(ctx.baseUrl, postPath(post.slug));
        const image = safeHttpUrl(post.ogImageUrl);
        const summary = oneLine(post.metaDescription);
        return {
          id: url,
          url,
          title: post.title,
          content_html: absoluteLinks(post.contentHtml, ctx.baseUrl),
          ...(summary ? { summary } : {}),
          ...(image ? { image } : {}),
          date_published: post.publishedAt,
          date_modified: post.updatedAt,
          tags: post.tags,
          language: detectPostLanguage(post),
        };
      }),
  };
  return textObject(ctx, SITE_FILES.jsonFeed, `${JSON.stringify(feed, null, 2)}\n`, CONTENT_TYPES.jsonFeed);
}

/**
 * `<blog>/sitemap.xml`: home, archive pages, posts and tag index pages (a tag's own archive
 * pages are reachable from it and only repeat posts already listed). `lastmod` is the newest
 * change among the posts a page shows.
 */
export function renderSitemap(ctx: RenderContext, summaries: readonly SitePostSummary[]): SiteObject {
  const oldestFirst = sortOldestFirst(summaries);
  const entries: { path: string; lastmod: string }[] = [];
  entries.push({ path: homePath, lastmod: latest(oldestFirst.slice(-HOME_PAGE_SIZE), ctx.blog.updatedAt) });
  const pages = archivePageCount(oldestFirst.length);
  for (let page = 1; page <= pages; page += 1) {
    entries.push({ path: archivePath(page), lastmod: latest(archivePageSlice(oldestFirst, page, ARCHIVE_PAGE_SIZE), ctx.blog.updatedAt) });
  }
  for (const post of oldestFirst) entries.push({ path: postPath(post.slug), lastmod: post.updatedAt });
  for (const tag of collectTags(oldestFirst)) entries.push({ path: tagPath(tag.name), lastmod: latest(tag.posts, ctx.blog.updatedAt) });
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>', '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'];
  for (const entry of entries) {
    lines.push(`  <url><loc>${escapeXml(absoluteUrl(ctx.baseUrl, entry.path))}</loc><lastmod>${escapeXml(entry.lastmod)}</lastmod></url>`);
  }
  lines.push('</urlset>', '');
  return textObject(ctx, SITE_FILES.sitemap, lines.join('\n'), CONTENT_TYPES.xml);
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

/** `<blog>/llms.txt` (llmstxt.org): title, description, then every post, newest first. */
export function renderLlmsTxt(ctx: RenderContext, summaries: readonly SitePostSummary[]): SiteObject {
  const lines = [`# ${oneLine(ctx.blog.name)}`];
  const blogDescription = oneLine(ctx.blog.description);
  if (blogDescription) lines.push('', `> ${blogDescription}`);
  lines.push('', '## Posts', '');
  for (const post of sortNewestFirst(summaries)) {
    const url = absoluteUrl(ctx.baseUrl, postPath(post.slug));
    const summary = oneLine(post.metaDescription);
    lines.push(`- [${markdownText(post.title)}](${url})${summary ? `: ${summary}` : ''}`);
  }
  return textObject(ctx, SITE_FILES.llms, `${lines.join('\n').trimEnd()}\n`, CONTENT_TYPES.text);
}
