/**
 * The blog's index pages: `/tags/` (every tag with its post count) and `/archive/` (years and
 * months with their counts), and one page per month at `/archive/<yyyy>/<mm>/` (with numbered
 * pages under it for a month of many posts). A publish
 * re-renders the two indexes (their size follows the number of tags and months, not posts)
 * and the month pages of the post it changed.
 */
import type { SiteObject } from '../../storage/siteStore.js';
import { archivePageCount, newestListing, sortNewestFirst, type TagGroup } from './archive.js';
import type { RenderContext } from './renderContext.js';
import { CONTENT_TYPES } from '../../domain/cacheHeaders.js';
import { collectionPageJsonLd } from './renderJsonLd.js';
import { labelsFor } from './renderLabels.js';
import { renderHtmlPage } from './renderLayout.js';
import {
  archiveIndexKey,
  archiveIndexPath,
  monthArchiveKey,
  monthArchivePath,
  monthKey,
  monthPath,
  postPath,
  tagIndexKey,
  tagIndexPath,
  tagPath,
} from './renderPaths.js';
import type { SitePostSummary } from '../../domain/siteTypes.js';

type Dated = Pick<SitePostSummary, 'publishedAt'>;

export interface Month {
  year: number;
  month: number;
}

/** The UTC month of a publication time (ISO, as stored). */
export function monthOf(publishedAt: string): Month {
  return { year: Number(publishedAt.slice(0, 4)), month: Number(publishedAt.slice(5, 7)) };
}

const monthId = (m: Month): string => `${m.year}-${String(m.month).padStart(2, '0')}`;

/** First index of an oldest-first list whose publishedAt is not below `bound` (ISO strings order as times do). */
function firstFrom(posts: readonly Dated[], bound: string, low = 0): number {
  let high = posts.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (posts[mid]!.publishedAt < bound) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** The first publishedAt after every one of the month's (`2024-05` → `2024-05\uffff`). */
const afterMonth = (month: Month): string => `${monthId(month)}\uffff`;

/**
 * Posts per month, newest month first, from an oldest-first list: one binary search per month,
 * so a publish in a blog of 50,000 posts counts its few hundred months, not its posts.
 */
export function monthCounts(posts: readonly Dated[]): (Month & { count: number })[] {
  const counts: (Month & { count: number })[] = [];
  for (let at = 0; at < posts.length; ) {
    const month = monthOf(posts[at]!.publishedAt);
    const end = firstFrom(posts, afterMonth(month), at + 1);
    counts.push({ ...month, count: end - at });
    at = end;
  }
  return counts.reverse();
}

/** The posts of one month, from an oldest-first list: the contiguous run between two binary searches. */
export function postsInMonth<T extends Dated>(posts: readonly T[], month: Month): T[] {
  const from = firstFrom(posts, monthId(month));
  return posts.slice(from, firstFrom(posts, afterMonth(month), from));
}

function htmlObject(ctx: RenderContext, key: string, body: string): SiteObject {
  return { key, body, contentType: CONTENT_TYPES.html, cacheControl: ctx.cache.page };
}

const collators = new Map<string, Intl.Collator>();

/**
 * How tag names are ordered in a language. One collator per language, made once: the process's
 * first one is slow (ICU loads its collation data), so the warm-up after a restart asks for
 * one before the first publish does.
 */
export function tagCollator(lang: string): Intl.Collator {
  let collator = collators.get(lang);
  if (!collator) collators.set(lang, (collator = new Intl.Collator(lang)));
  return collator;
}

/** `<blog>/tags/index.html`: every tag, by name, with its number of posts. */
export function renderTagIndexPage(ctx: RenderContext, tags: readonly TagGroup<unknown>[]): SiteObject {
  const labels = labelsFor(ctx.lang);
  const entries = [...tags]
    .sort((a, b) => tagCollator(ctx.lang).compare(a.name, b.name))
    .map((tag) => ({ name: tag.name, href: tagPath(tag.name), count: tag.posts.length, countText: labels.postCount(tag.posts.length) }));
  const html = renderHtmlPage(
    ctx,
    {
      lang: ctx.lang,
      title: `${labels.tags} · ${ctx.blog.name}`,
      description: labels.tagIndexDescription(ctx.blog.name),
      path: tagIndexPath,
      ogType: 'website',
      current: 'tags',
    },
    'tagIndex',
    { heading: labels.tags, tags: entries },
  );
  return htmlObject(ctx, tagIndexKey(ctx.blog.slug), html);
}

/** `<blog>/archive/index.html`: years, newest first, each with its months and their counts. */
export function renderArchiveIndexPage(ctx: RenderContext, posts: readonly Dated[]): SiteObject {
  const labels = labelsFor(ctx.lang);
  const years: { year: number; count: number; months: { name: string; href: string; countText: string }[] }[] = [];
  for (const month of monthCounts(posts)) {
    let year = years[years.length - 1];
    if (!year || year.year !== month.year) {
      year = { year: month.year, count: 0, months: [] };
      years.push(year);
    }
    year.count += month.count;
    year.months.push({ name: labels.monthName(month.month), href: monthPath(month.year, month.month), countText: labels.postCount(month.count) });
  }
  const html = renderHtmlPage(
    ctx,
    {
      lang: ctx.lang,
      title: `${labels.archive} · ${ctx.blog.name}`,
      description: labels.archiveIndexDescription(ctx.blog.name),
      path: archiveIndexPath,
      ogType: 'website',
      current: 'archive',
    },
    'archiveIndex',
    { heading: labels.archive, years: years.map((y) => ({ ...y, countText: labels.postCount(y.count) })) },
  );
  return htmlObject(ctx, archiveIndexKey(ctx.blog.slug), html);
}

/**
 * A month of more posts than this is paged: its page shows the newest of them (MONTH_PAGE_SIZE
 * to twice that, as the home page does) and numbered pages of MONTH_PAGE_SIZE, counted from the
 * month's oldest post, hold them all. A burst or an import that puts thousands of posts in one
 * month would otherwise make its page megabytes, rendered again by every publish into it.
 */
export const MONTH_LIST_ALL_MAX = 200;
export const MONTH_PAGE_SIZE = 100;

/** The numbered pages of a month of `count` posts: none unless it is paged. */
export function monthPageCount(count: number): number {
  return count > MONTH_LIST_ALL_MAX ? archivePageCount(count, MONTH_PAGE_SIZE) : 0;
}

type MonthPost = Pick<SitePostSummary, 'id' | 'slug' | 'title' | 'publishedAt'>;

function monthItems(posts: readonly MonthPost[], labels: ReturnType<typeof labelsFor>) {
  return posts.map((post) => ({
    href: postPath(post.slug),
    title: post.title,
    date: { iso: post.publishedAt, text: labels.formatDate(post.publishedAt) },
    description: '',
  }));
}

/**
 * `<blog>/archive/<yyyy>/<mm>/index.html`: the month's posts (`posts`, oldest first), newest first;
 * in a paged month the newest of them, and a link to the numbered page before them.
 */
export function renderMonthPage(ctx: RenderContext, month: Month, posts: readonly MonthPost[]): SiteObject {
  const labels = labelsFor(ctx.lang);
  const heading = labels.monthTitle(month.year, month.month);
  const paged = monthPageCount(posts.length) > 0;
  const listing = paged ? newestListing(posts.length, MONTH_PAGE_SIZE, MONTH_PAGE_SIZE) : { shown: posts.length, olderPage: null };
  const newestFirst = sortNewestFirst(posts.slice(posts.length - listing.shown));
  const html = renderHtmlPage(
    ctx,
    {
      lang: ctx.lang,
      title: `${heading} · ${ctx.blog.name}`,
      description: labels.monthDescription(ctx.blog.name, month.year, month.month),
      path: monthPath(month.year, month.month),
      ogType: 'website',
      current: 'archive',
      jsonLd: [collectionPageJsonLd(ctx, heading, monthPath(month.year, month.month), newestFirst)],
    },
    'archive',
    {
      heading,
      compact: true,
      posts: monthItems(newestFirst, labels),
      pager: {
        newer: null,
        older: listing.olderPage ? monthArchivePath(month.year, month.month, listing.olderPage) : null,
        up: archiveIndexPath,
      },
    },
  );
  return htmlObject(ctx, monthKey(ctx.blog.slug, month.year, month.month), html);
}

/** `<blog>/archive/<yyyy>/<mm>/page/<n>/index.html`: numbered page `page` of a paged month. */
export function renderMonthArchivePage(ctx: RenderContext, month: Month, page: number, postsOnPage: readonly MonthPost[], pageCount: number): SiteObject {
  const labels = labelsFor(ctx.lang);
  const heading = labels.monthArchiveTitle(month.year, month.month, page);
  const path = monthArchivePath(month.year, month.month, page);
  const newestFirst = sortNewestFirst(postsOnPage);
  const html = renderHtmlPage(
    ctx,
    {
      lang: ctx.lang,
      title: `${heading} · ${ctx.blog.name}`,
      description: labels.monthDescription(ctx.blog.name, month.year, month.month),
      path,
      ogType: 'website',
      current: 'archive',
      jsonLd: [collectionPageJsonLd(ctx, heading, path, newestFirst)],
    },
    'archive',
    {
      heading,
      compact: true,
      posts: monthItems(newestFirst, labels),
      pager: {
        newer: page < pageCount ? monthArchivePath(month.year, month.month, page + 1) : null,
        older: page > 1 ? monthArchivePath(month.year, month.month, page - 1) : null,
        up: archiveIndexPath,
      },
    },
  );
  return htmlObject(ctx, monthArchiveKey(ctx.blog.slug, month.year, month.month, page), html);
}
