/**
 * Which objects one post's change touches, and their new content: a pure function of data the
 * publisher loaded. Its cost follows the change (the post, its neighbours, one or two archive
 * pages per list, the feeds), not the size of the blog.
 */
import type { SiteObject } from '../storage/siteStore.js';
import { ARCHIVE_PAGE_SIZE, FEED_SIZE, HOME_LIST_MAX, TAG_LIST_MAX, archivePageCount, archivePageSlice, archivePagesAffected, indexOfPost, positionOf, type TagGroup } from './render/archive.js';
import { siteAssets } from './render/assets.js';
import { LLMS_POST_COUNT, renderJsonFeed, renderLlmsTxt, renderRobots, renderRss } from './render/feeds.js';
import type { RenderContext } from './render/renderContext.js';
import { renderArchivePage, renderHomePage, renderTagArchivePage, renderTagPage } from './render/renderListPages.js';
import { renderNotFoundPage } from './render/renderNotFoundPage.js';
import { renderSearchPage } from './render/renderSearchPage.js';
import { archiveKey, monthKey, postKey, redirectKey, tagArchiveKey, tagKey, tagSegment } from './render/renderPaths.js';
import { monthOf, postsInMonth, renderArchiveIndexPage, renderMonthPage, renderTagIndexPage, type Month } from './render/renderIndexPages.js';
import { renderPostPage } from './render/renderPostPage.js';
import { renderRedirect } from './render/renderRedirect.js';
import { SITEMAP_CHUNK_SIZE, fileKeyOfSitemapChunk, renderSitemapChunk, renderSitemapIndex, renderSitemapPages, sitemapChunkCount, sitemapChunkSlice } from './render/sitemap.js';
import type { SitePost, SitePostSummary } from '../domain/siteTypes.js';

export interface PostChangeInput {
  ctx: RenderContext;
  /** Every published post of the blog, oldest first. */
  summaries: readonly SitePostSummary[];
  /** The published posts of one tag segment, oldest first. */
  tagged: (segment: string) => readonly SitePostSummary[];
  /** Every tag of the published posts, as collectTags gives them. */
  tagGroups: () => TagGroup<SitePostSummary>[];
  /** The post as it is now when it is live, else null. */
  post: SitePost | null;
  /** Full posts for the live neighbours of `post` (by id). */
  neighbours: ReadonlyMap<string, SitePost>;
  /** The newest FEED_SIZE posts with bodies, newest first. */
  newest: readonly SitePost[];
  /** Slug the post had before, if it changed or the post left the site. */
  previousSlug?: string | undefined;
  previousTags?: readonly string[] | undefined;
  /** True when the post was live before (an edit in place); false for a first publication. */
  wasLive?: boolean | undefined;
  /** published_at of a post that left the site, to find the page it leaves. */
  previousPublishedAt?: string | undefined;
  postId: string;
  /** Old slugs and alias paths (starting with `/`) of the post that redirect to its current slug. */
  redirectsToPost: readonly string[];
  /** Old addresses of a deleted post whose objects must go. */
  removedRedirects?: readonly string[] | undefined;
}

export interface PostChangeOutput {
  objects: SiteObject[];
  deletions: string[];
}

interface ListChange {
  position: number | null;
  totalBefore: number;
  totalAfter: number;
}

/** Archive pages (or sitemap chunks) to render and to remove; all of them when the change cannot be placed. */
function pagesFor(change: ListChange, total: number, pageSize = ARCHIVE_PAGE_SIZE): { render: number[]; remove: number[] } {
  if (change.position === null) {
    const count = archivePageCount(total, pageSize);
    return { render: Array.from({ length: count }, (_, i) => i + 1), remove: [count + 1] };
  }
  return archivePagesAffected({ position: change.position, totalBefore: change.totalBefore, totalAfter: change.totalAfter }, pageSize);
}

/** Where in an oldest-first list the post is, or was, and how the list's length changed. */
function locate(list: readonly SitePostSummary[], input: PostChangeInput): ListChange {
  const index = input.post ? indexIn(list, input.post) : -1;
  if (index >= 0) {
    const inserted = input.wasLive === false;
    return { position: index, totalBefore: inserted ? list.length - 1 : list.length, totalAfter: list.length };
  }
  if (!input.previousPublishedAt) return { position: null, totalBefore: list.length + 1, totalAfter: list.length };
  const position = positionOf(list, { id: input.postId, publishedAt: input.previousPublishedAt });
  return { position, totalBefore: list.length + 1, totalAfter: list.length };
}

/**
 * Where a live post sits in an oldest-first list: a binary search by its (publishedAt, id), so a
 * publish in a 50,000-post blog does not walk the list three times. The walk stays as the answer
 * should the list's copy of the post carry another date than the post read for rendering.
 */
function indexIn(list: readonly SitePostSummary[], post: { id: string; publishedAt: string }): number {
  const at = indexOfPost(list, post);
  return at >= 0 ? at : list.findIndex((p) => p.id === post.id);
}

/**
 * What the pages of the blog's next publish list when it adds a post, the usual case: the newest
 * posts (home page, last archive page, llms.txt), every post of the newest month, the last sitemap
 * chunk, and the newest posts of the newest post's tags (tag pages and their last archive pages).
 * The warm-up after a restart reads their rows ahead of that publish (Listing.prefetch).
 */
export function listedByNextPost(
  summaries: readonly SitePostSummary[],
  tagged: (segment: string) => readonly SitePostSummary[],
): (readonly SitePostSummary[])[] {
  const newest = summaries[summaries.length - 1];
  if (!newest) return [];
  const lists = [
    summaries.slice(-Math.max(HOME_LIST_MAX, LLMS_POST_COUNT, 2 * ARCHIVE_PAGE_SIZE)),
    postsInMonth(summaries, monthOf(newest.publishedAt)),
    sitemapChunkSlice(summaries, sitemapChunkCount(summaries.length)),
  ];
  for (const tag of newest.tags) lists.push(tagged(tagSegment(tag)).slice(-Math.max(TAG_LIST_MAX, 2 * ARCHIVE_PAGE_SIZE)));
  return lists;
}

export function renderPostChange(input: PostChangeInput): PostChangeOutput {
  const { ctx, summaries, post } = input;
  const blog = ctx.blog.slug;
  const objects: SiteObject[] = [...siteAssets(ctx.blog.slug, ctx.theme.assets)];
  const deletions: string[] = [];

  if (post) {
    const index = indexIn(summaries, post);
    objects.push(renderPostPage(ctx, post, { older: summaries[index - 1] ?? null, newer: summaries[index + 1] ?? null }));
    for (const redirect of input.redirectsToPost) objects.push(renderRedirect(ctx, redirect, post.slug));
  }
  if (input.previousSlug && input.previousSlug !== post?.slug && !input.redirectsToPost.includes(input.previousSlug)) {
    deletions.push(postKey(blog, input.previousSlug));
  }
  for (const from of input.removedRedirects ?? []) {
    // An address the post still redirects from (it was re-added meanwhile) stays.
    if (!(post && input.redirectsToPost.includes(from))) deletions.push(redirectKey(blog, from));
  }

  // Neighbours show this post's title in their newer/older links, and gain or lose it.
  for (const neighbour of input.neighbours.values()) {
    const index = indexIn(summaries, neighbour);
    if (index < 0) continue;
    objects.push(renderPostPage(ctx, neighbour, { older: summaries[index - 1] ?? null, newer: summaries[index + 1] ?? null }));
  }

  const newestFirst = summaries.slice(-HOME_LIST_MAX).reverse();
  objects.push(renderHomePage(ctx, newestFirst, summaries.length));

  const pageCount = archivePageCount(summaries.length);
  const archive = pagesFor(locate(summaries, input), summaries.length);
  for (const page of archive.render) {
    if (page >= 1 && page <= pageCount) objects.push(renderArchivePage(ctx, page, archivePageSlice(summaries, page), pageCount));
  }
  for (const page of archive.remove) if (page > pageCount) deletions.push(archiveKey(blog, page));

  const tags = new Map<string, string>();
  for (const tag of [...(input.previousTags ?? []), ...(post?.tags ?? [])]) tags.set(tagSegment(tag), tag);
  for (const [segment, fallbackName] of tags) {
    const tagged = input.tagged(segment);
    const name = tagged.length ? (tagged[tagged.length - 1]!.tags.find((t) => tagSegment(t) === segment) ?? fallbackName) : fallbackName;
    const tagPages = archivePageCount(tagged.length);
    if (tagged.length === 0) {
      deletions.push(tagKey(blog, name), tagArchiveKey(blog, name, 1));
      continue;
    }
    objects.push(renderTagPage(ctx, name, tagged.slice(-TAG_LIST_MAX), tagged.length));
    const pages = pagesFor(locate(tagged, input), tagged.length);
    for (const page of pages.render) {
      if (page >= 1 && page <= tagPages) objects.push(renderTagArchivePage(ctx, name, page, archivePageSlice(tagged, page), tagPages));
    }
    for (const page of pages.remove) if (page > tagPages) deletions.push(tagArchiveKey(blog, name, page));
  }

  // The indexes: their size follows the tags and months, not the posts.
  const tagGroups = input.tagGroups();
  objects.push(renderTagIndexPage(ctx, tagGroups), renderArchiveIndexPage(ctx, summaries));
  const months = new Map<string, Month>();
  for (const publishedAt of [post?.publishedAt, input.previousPublishedAt]) {
    if (publishedAt) months.set(publishedAt.slice(0, 7), monthOf(publishedAt));
  }
  for (const month of months.values()) {
    const inMonth = postsInMonth(summaries, month);
    if (inMonth.length > 0) objects.push(renderMonthPage(ctx, month, inMonth));
    else deletions.push(monthKey(blog, month.year, month.month));
  }

  objects.push(renderSitemapIndex(ctx, summaries.length), renderSitemapPages(ctx, newestFirst, tagGroups));
  const chunkCount = sitemapChunkCount(summaries.length);
  const chunks = pagesFor(locate(summaries, input), summaries.length, SITEMAP_CHUNK_SIZE);
  for (const chunk of chunks.render) {
    if (chunk >= 1 && chunk <= chunkCount) objects.push(renderSitemapChunk(ctx, chunk, sitemapChunkSlice(summaries, chunk)));
  }
  for (const chunk of chunks.remove) if (chunk > chunkCount) deletions.push(fileKeyOfSitemapChunk(blog, chunk));

  objects.push(
    renderNotFoundPage(ctx),
    // Like the 404 page, it depends on no post; the store's hashes make rewriting it a no-op.
    renderSearchPage(ctx),
    renderRss(ctx, input.newest.slice(0, FEED_SIZE)),
    renderJsonFeed(ctx, input.newest.slice(0, FEED_SIZE)),
    renderRobots(ctx),
    renderLlmsTxt(ctx, summaries.slice(-LLMS_POST_COUNT).reverse(), summaries.length),
  );
  return { objects, deletions };
}
