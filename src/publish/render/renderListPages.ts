/**
 * Pages that list posts: the home page, the archive pages, and each tag's index and archive
 * pages. Page numbers count from the oldest post (see archive.ts); within a page the newest
 * post comes first.
 */
import { blogCardUrl } from '../cards/cardSpec.js';
import type { SiteObject } from '../../storage/siteStore.js';
import { thumbnailOf } from '../../media/mediaNames.js';
import { HOME_PAGE_SIZE, TAG_PAGE_SIZE, newestListing, sortNewestFirst } from './archive.js';
import type { RenderContext } from './renderContext.js';
import { CONTENT_TYPES } from '../../domain/cacheHeaders.js';
import { labelsFor, type Labels } from './renderLabels.js';
import { blogJsonLd, collectionPageJsonLd } from './renderJsonLd.js';
import { renderHtmlPage } from './renderLayout.js';
import { archiveKey, archivePath, homeKey, homePath, postPath, postImageUrl, tagArchiveKey, tagArchivePath, tagKey, tagPath } from './renderPaths.js';
import type { SitePostSummary } from '../../domain/siteTypes.js';
import { countPostText, type TextCounts } from '../../domain/language.js';
import { minutesFromCounts } from '../../domain/readingTime.js';

type ListedPost = Pick<SitePostSummary, 'id' | 'slug' | 'title' | 'metaDescription' | 'publishedAt' | 'ogImageUrl' | 'tags' | 'readingMinutes'> & {
  // A full render lists whole posts: their reading time comes from these.
  textCounts?: TextCounts | null;
  contentMd?: string;
};

/** A listed post's reading time, as its own page shows it. */
export function readingMinutesOf(post: ListedPost): number {
  return post.readingMinutes ?? minutesFromCounts(post.textCounts ?? countPostText({ title: post.title, contentMd: post.contentMd ?? '' }));
}

const thumbnailOrNull = (url: string | null): string | null => (url ? thumbnailOf(url) : null);

/** The cards of a list page: title, date, reading time, tags, description and the post's image. */
function listItems(ctx: RenderContext, posts: readonly ListedPost[], labels: Labels) {
  return sortNewestFirst(posts).map((post) => ({
    href: postPath(post.slug),
    title: post.title,
    date: { iso: post.publishedAt, text: labels.formatDate(post.publishedAt) },
    readingTime: labels.readingTime(readingMinutesOf(post)),
    tags: post.tags.map((name) => ({ name, href: tagPath(name) })),
    image: thumbnailOrNull(postImageUrl(ctx.baseUrl, post.ogImageUrl)),
    description: post.metaDescription,
  }));
}

function htmlObject(ctx: RenderContext, key: string, body: string): SiteObject {
  return { key, body, contentType: CONTENT_TYPES.html, cacheControl: ctx.cache.page };
}

/** Pager links of archive page `page` of `pageCount`: newer is the next number, older the previous. */
function pager(page: number, pageCount: number, pathOf: (page: number) => string) {
  return {
    newer: page < pageCount ? pathOf(page + 1) : null,
    older: page > 1 ? pathOf(page - 1) : null,
  };
}

/**
 * `<blog>/index.html`: the newest whole archive pages, at least HOME_PAGE_SIZE posts
 * (`newestPosts` must hold the newest HOME_LIST_MAX), and a link to the archive page before them.
 */
export function renderHomePage(ctx: RenderContext, newestPosts: readonly ListedPost[], totalCount: number): SiteObject {
  const labels = labelsFor(ctx.lang);
  const listing = newestListing(totalCount, HOME_PAGE_SIZE);
  const shown = sortNewestFirst(newestPosts).slice(0, listing.shown);
  const posts = listItems(ctx, shown, labels);
  const older = listing.olderPage;
  const html = renderHtmlPage(
    ctx,
    {
      lang: ctx.lang,
      title: ctx.blog.name,
      description: ctx.blog.description || ctx.blog.name,
      path: homePath,
      ogType: 'website',
      card: blogCardUrl(ctx.blog, ctx.baseUrl),
      isHome: true,
      counts: 'blog',
      jsonLd: [blogJsonLd(ctx, shown)],
    },
    'home',
    { blogName: ctx.blog.name, blogDescription: ctx.blog.description, posts, olderHref: older ? archivePath(older) : null },
  );
  return htmlObject(ctx, homeKey(ctx.blog.slug), html);
}

/** `<blog>/page/<n>/index.html`. */
export function renderArchivePage(ctx: RenderContext, page: number, postsOnPage: readonly ListedPost[], pageCount: number): SiteObject {
  const labels = labelsFor(ctx.lang);
  const heading = labels.archiveTitle(page);
  const html = renderHtmlPage(
    ctx,
    {
      lang: ctx.lang,
      title: `${heading} · ${ctx.blog.name}`,
      description: labels.archiveDescription(ctx.blog.name, page),
      path: archivePath(page),
      ogType: 'website',
      jsonLd: [collectionPageJsonLd(ctx, heading, archivePath(page), sortNewestFirst(postsOnPage))],
    },
    'archive',
    { heading, compact: false, posts: listItems(ctx, postsOnPage, labels), pager: pager(page, pageCount, archivePath) },
  );
  return htmlObject(ctx, archiveKey(ctx.blog.slug, page), html);
}

/**
 * `<blog>/tags/<tag>/index.html`: the tag's newest whole archive pages, at least TAG_PAGE_SIZE
 * posts (`newestPosts` must hold the newest TAG_LIST_MAX), as a compact list (date and title),
 * and a link to the tag's archive page before them.
 */
export function renderTagPage(ctx: RenderContext, tag: string, newestPosts: readonly ListedPost[], totalCount: number): SiteObject {
  const labels = labelsFor(ctx.lang);
  const listing = newestListing(totalCount, TAG_PAGE_SIZE);
  const shown = sortNewestFirst(newestPosts).slice(0, listing.shown);
  const posts = listItems(ctx, shown, labels);
  const older = listing.olderPage;
  const heading = labels.tagTitle(tag);
  const html = renderHtmlPage(
    ctx,
    {
      lang: ctx.lang,
      title: `${heading} · ${ctx.blog.name}`,
      description: labels.tagDescription(tag, ctx.blog.name),
      path: tagPath(tag),
      ogType: 'website',
      jsonLd: [collectionPageJsonLd(ctx, heading, tagPath(tag), shown)],
    },
    'tag',
    { heading, count: labels.postCount(totalCount), posts, olderHref: older ? tagArchivePath(tag, older) : null },
  );
  return htmlObject(ctx, tagKey(ctx.blog.slug, tag), html);
}

/** `<blog>/tags/<tag>/page/<n>/index.html`, numbered from the tag's oldest post. */
export function renderTagArchivePage(ctx: RenderContext, tag: string, page: number, postsOnPage: readonly ListedPost[], pageCount: number): SiteObject {
  const labels = labelsFor(ctx.lang);
  const heading = labels.tagArchiveTitle(tag, page);
  const html = renderHtmlPage(
    ctx,
    {
      lang: ctx.lang,
      title: `${heading} · ${ctx.blog.name}`,
      description: labels.tagDescription(tag, ctx.blog.name),
      path: tagArchivePath(tag, page),
      ogType: 'website',
      jsonLd: [collectionPageJsonLd(ctx, heading, tagArchivePath(tag, page), sortNewestFirst(postsOnPage))],
    },
    'archive',
    {
      heading,
      compact: true,
      posts: listItems(ctx, postsOnPage, labels),
      pager: pager(page, pageCount, (n) => tagArchivePath(tag, n)),
    },
  );
  return htmlObject(ctx, tagArchiveKey(ctx.blog.slug, tag, page), html);
}
