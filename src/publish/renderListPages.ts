/**
 * Pages that list posts: the home page, the archive pages, and each tag's index and archive
 * pages. Page numbers count from the oldest post (see archive.ts); within a page the newest
 * post comes first.
 */
import type { SiteObject } from '../storage/siteStore.js';
import { HOME_PAGE_SIZE, TAG_PAGE_SIZE, olderPostsPage, sortNewestFirst } from './archive.js';
import type { RenderContext } from './renderContext.js';
import { CACHE_CONTROL_PAGE, CONTENT_TYPES } from './renderHeaders.js';
import { labelsFor, type Labels } from './renderLabels.js';
import { renderHtmlPage } from './renderLayout.js';
import {
  archiveKey,
  archivePath,
  homeKey,
  homePath,
  postPath,
  tagArchiveKey,
  tagArchivePath,
  tagKey,
  tagPath,
} from './renderPaths.js';
import type { SitePostSummary } from './siteTypes.js';

type ListedPost = Pick<SitePostSummary, 'id' | 'slug' | 'title' | 'metaDescription' | 'publishedAt'>;

function listItems(posts: readonly ListedPost[], labels: Labels) {
  return sortNewestFirst(posts).map((post) => ({
    href: postPath(post.slug),
    title: post.title,
    date: { iso: post.publishedAt, text: labels.formatDate(post.publishedAt) },
    description: post.metaDescription,
  }));
}

function htmlObject(key: string, body: string): SiteObject {
  return { key, body, contentType: CONTENT_TYPES.html, cacheControl: CACHE_CONTROL_PAGE };
}

/** Pager links of archive page `page` of `pageCount`: newer is the next number, older the previous. */
function pager(page: number, pageCount: number, pathOf: (page: number) => string) {
  return {
    newer: page < pageCount ? pathOf(page + 1) : null,
    older: page > 1 ? pathOf(page - 1) : null,
  };
}

/** `<blog>/index.html`: the newest HOME_PAGE_SIZE of `newestPosts`, and a link to older ones. */
export function renderHomePage(ctx: RenderContext, newestPosts: readonly ListedPost[], totalCount: number): SiteObject {
  const labels = labelsFor(ctx.lang);
  const posts = listItems(newestPosts, labels).slice(0, HOME_PAGE_SIZE);
  const older = olderPostsPage(totalCount, posts.length);
  const html = renderHtmlPage(
    ctx,
    { lang: ctx.lang, title: ctx.blog.name, description: ctx.blog.description || ctx.blog.name, path: homePath, ogType: 'website', isHome: true },
    'home',
    { blogName: ctx.blog.name, blogDescription: ctx.blog.description, posts, olderHref: older ? archivePath(older) : null },
  );
  return htmlObject(homeKey(ctx.blog.slug), html);
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
    },
    'archive',
    { heading, compact: false, posts: listItems(postsOnPage, labels), pager: pager(page, pageCount, archivePath) },
  );
  return htmlObject(archiveKey(ctx.blog.slug, page), html);
}

/**
 * `<blog>/tags/<tag>/index.html`: the tag's newest TAG_PAGE_SIZE posts as a compact list (date
 * and title), and a link to the tag's archive page holding the next older post.
 */
export function renderTagPage(ctx: RenderContext, tag: string, newestPosts: readonly ListedPost[], totalCount: number): SiteObject {
  const labels = labelsFor(ctx.lang);
  const posts = listItems(newestPosts, labels).slice(0, TAG_PAGE_SIZE);
  const older = olderPostsPage(totalCount, posts.length);
  const heading = labels.tagTitle(tag);
  const html = renderHtmlPage(
    ctx,
    { lang: ctx.lang, title: `${heading} · ${ctx.blog.name}`, description: labels.tagDescription(tag, ctx.blog.name), path: tagPath(tag), ogType: 'website' },
    'tag',
    { heading, count: labels.postCount(totalCount), posts, olderHref: older ? tagArchivePath(tag, older) : null },
  );
  return htmlObject(tagKey(ctx.blog.slug, tag), html);
}

/** `<blog>/tags/<tag>/page/<n>/index.html`, numbered from the tag's oldest post. */
export function renderTagArchivePage(
  ctx: RenderContext,
  tag: string,
  page: number,
  postsOnPage: readonly ListedPost[],
  pageCount: number,
): SiteObject {
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
    },
    'archive',
    {
      heading,
      compact: true,
      posts: listItems(postsOnPage, labels),
      pager: pager(page, pageCount, (n) => tagArchivePath(tag, n)),
    },
  );
  return htmlObject(tagArchiveKey(ctx.blog.slug, tag, page), html);
}
