/**
 * The blog's sitemaps, split so that a publish rewrites a bounded amount of XML however big the
 * blog is (sitemaps.org allows an index of child sitemaps):
 *
 * - `sitemap.xml`, the index, names the children; it changes only when a chunk is added or
 *   removed;
 * - `sitemap-pages.xml` lists the home page and every tag page;
 * - `sitemap-posts-<k>.xml` lists the k-th SITEMAP_CHUNK_SIZE posts counted from the OLDEST
 *   (the archive's rule) together with the archive pages that hold them, so a new post only
 *   touches the last chunk.
 *
 * Post slugs cannot contain a `.`, so these names never meet a post's address. `lastmod` is the
 * newest change among the posts a page shows.
 */
import type { SiteObject } from '../../storage/siteStore.js';
import { ARCHIVE_PAGE_SIZE, HOME_PAGE_SIZE, TAG_PAGE_SIZE, archivePageCount, type TagGroup } from './archive.js';
import { escapeXml, latest, textObject } from './feeds.js';
import type { RenderContext } from './renderContext.js';
import { CONTENT_TYPES } from '../../domain/cacheHeaders.js';
import { SITE_FILES, absoluteUrl, archivePath, fileKey, filePath, homePath, postPath, tagPath, archiveIndexPath, tagIndexPath } from './renderPaths.js';
import type { SitePostSummary } from '../../domain/siteTypes.js';

/** Posts per child sitemap: a multiple of ARCHIVE_PAGE_SIZE so an archive page sits in its posts' chunk. */
export const SITEMAP_CHUNK_SIZE = 1000;
const PAGES_PER_CHUNK = SITEMAP_CHUNK_SIZE / ARCHIVE_PAGE_SIZE;

export const SITEMAP_PAGES_FILE = 'sitemap-pages.xml';

export function sitemapChunkFile(chunk: number): string {
  return `sitemap-posts-${chunk}.xml`;
}

export function fileKeyOfSitemapChunk(blogSlug: string, chunk: number): string {
  return fileKey(blogSlug, sitemapChunkFile(chunk));
}

export function sitemapChunkCount(total: number): number {
  return Math.ceil(Math.max(0, total) / SITEMAP_CHUNK_SIZE);
}

interface Entry {
  path: string;
  lastmod: string;
}

function urlset(ctx: RenderContext, name: string, entries: readonly Entry[]): SiteObject {
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>', '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'];
  for (const entry of entries) {
    lines.push(`  <url><loc>${escapeXml(absoluteUrl(ctx.baseUrl, entry.path))}</loc><lastmod>${escapeXml(entry.lastmod)}</lastmod></url>`);
  }
  lines.push('</urlset>', '');
  return textObject(ctx, name, lines.join('\n'), CONTENT_TYPES.xml);
}

/** `<blog>/sitemap.xml`: the index of the child sitemaps for a blog of `total` posts. */
export function renderSitemapIndex(ctx: RenderContext, total: number): SiteObject {
  const children = [SITEMAP_PAGES_FILE];
  for (let chunk = 1; chunk <= sitemapChunkCount(total); chunk += 1) children.push(sitemapChunkFile(chunk));
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>', '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'];
  for (const child of children) lines.push(`  <sitemap><loc>${escapeXml(absoluteUrl(ctx.baseUrl, filePath(child)))}</loc></sitemap>`);
  lines.push('</sitemapindex>', '');
  return textObject(ctx, SITE_FILES.sitemap, lines.join('\n'), CONTENT_TYPES.xml);
}

/**
 * `<blog>/sitemap-pages.xml`: the home page (its newest HOME_PAGE_SIZE posts given newest
 * first) and each tag's page, in the order of `tags`.
 */
export function renderSitemapPages(ctx: RenderContext, home: readonly SitePostSummary[], tags: readonly TagGroup<SitePostSummary>[]): SiteObject {
  const lastmod = latest(home.slice(0, HOME_PAGE_SIZE), ctx.blog.updatedAt);
  const entries: Entry[] = [
    { path: homePath, lastmod },
    { path: tagIndexPath, lastmod },
    { path: archiveIndexPath, lastmod },
  ];
  for (const tag of tags) entries.push({ path: tagPath(tag.name), lastmod: latest(tag.posts.slice(-TAG_PAGE_SIZE), ctx.blog.updatedAt) });
  return urlset(ctx, SITEMAP_PAGES_FILE, entries);
}

/**
 * `<blog>/sitemap-posts-<chunk>.xml`: `posts` are that chunk's posts (oldest first), i.e.
 * positions (chunk-1)·SITEMAP_CHUNK_SIZE onwards of the oldest-first list.
 */
export function renderSitemapChunk(ctx: RenderContext, chunk: number, posts: readonly SitePostSummary[]): SiteObject {
  const entries: Entry[] = [];
  const firstPage = (chunk - 1) * PAGES_PER_CHUNK + 1;
  for (let i = 0; i < archivePageCount(posts.length); i += 1) {
    const shown = posts.slice(i * ARCHIVE_PAGE_SIZE, (i + 1) * ARCHIVE_PAGE_SIZE);
    entries.push({ path: archivePath(firstPage + i), lastmod: latest(shown, ctx.blog.updatedAt) });
  }
  for (const post of posts) entries.push({ path: postPath(post.slug), lastmod: post.updatedAt });
  return urlset(ctx, sitemapChunkFile(chunk), entries);
}

/** The posts of `chunk` from a list sorted oldest first. */
export function sitemapChunkSlice<T>(oldestFirst: readonly T[], chunk: number): T[] {
  return oldestFirst.slice((chunk - 1) * SITEMAP_CHUNK_SIZE, chunk * SITEMAP_CHUNK_SIZE);
}
