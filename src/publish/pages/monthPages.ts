/**
 * The archive index `/archive/` (years and months with their counts) and each month's page
 * `/archive/<yyyy>/<mm>/`, with numbered pages `/archive/<yyyy>/<mm>/page/<n>/` for a month of
 * many posts (MONTH_LIST_ALL_MAX). A post's change re-renders the index, whose size follows the
 * months and not the posts, the months the post is or was in, and the numbered pages of those
 * months the change touches, found as a tag's are.
 */
import { archivePageSlice } from '../render/archive.js';
import {
  MONTH_LIST_ALL_MAX,
  MONTH_PAGE_SIZE,
  monthCounts,
  monthOf,
  monthPageCount,
  postsInMonth,
  renderArchiveIndexPage,
  renderMonthArchivePage,
  renderMonthPage,
  type Month,
} from '../render/renderIndexPages.js';
import { monthArchiveKey, monthKey } from '../render/renderPaths.js';
import { locate, numberedPages, pagesFor } from './listChange.js';
import { onePage, type PageType } from './pageType.js';

export const archiveIndex = onePage('archive index', (site) => renderArchiveIndexPage(site.ctx, site.posts));

/** A month's page (`page` null) or one of its numbered pages. */
export interface MonthPage extends Month {
  page: number | null;
}

export const monthPages: PageType<MonthPage> = {
  name: 'month pages',
  all: (site) =>
    monthCounts(site.posts).flatMap(({ year, month, count }) => [
      { year, month, page: null },
      ...Array.from({ length: monthPageCount(count) }, (_, i) => ({ year, month, page: i + 1 })),
    ]),
  affectedBy: (site, change) => {
    const blog = site.ctx.blog.slug;
    const months = new Map<string, Month>();
    for (const publishedAt of [change.post?.publishedAt, change.previousPublishedAt]) {
      if (publishedAt) months.set(publishedAt.slice(0, 7), monthOf(publishedAt));
    }
    const render: MonthPage[] = [];
    const remove: string[] = [];
    // Changes the store may not show yet: the month's length before them is known to within that many.
    const slack = Math.max(1, change.unpublishedChanges ?? 1);
    for (const month of months.values()) {
      const posts = postsInMonth(site.posts, month);
      const count = monthPageCount(posts.length);
      const pageKey = (page: number): string => monthArchiveKey(blog, month.year, month.month, page);
      if (posts.length > 0) render.push({ ...month, page: null });
      else remove.push(monthKey(blog, month.year, month.month));
      if (posts.length + slack <= MONTH_LIST_ALL_MAX) continue;
      if (count === 0 || posts.length - slack <= MONTH_LIST_ALL_MAX) {
        // The month may have crossed the line either way: every numbered page it has is
        // rendered, and every one it may have had is removed.
        for (let page = 1; page <= count; page++) render.push({ ...month, page });
        for (let page = count + 1; page <= monthPageCount(posts.length + slack); page++) remove.push(pageKey(page));
        continue;
      }
      const pages = numberedPages(pagesFor(locate(posts, change), posts.length, MONTH_PAGE_SIZE), count, pageKey);
      render.push(...pages.render.map((page) => ({ ...month, page })));
      remove.push(...pages.remove);
    }
    return { render, remove };
  },
  render: (site, { year, month, page }) => {
    const posts = postsInMonth(site.posts, { year, month });
    if (page === null) return renderMonthPage(site.ctx, { year, month }, posts);
    return renderMonthArchivePage(site.ctx, { year, month }, page, archivePageSlice(posts, page, MONTH_PAGE_SIZE), monthPageCount(posts.length));
  },
  pageId: ({ year, month, page }) => `${year}-${month}/${page ?? ''}`,
  // The newest month's posts; when it is paged, the newest 300 (its page shows up to 199, and
  // the next publish may touch the last numbered page and the one before it).
  listedByNextPost: (posts) => {
    const month = postsInMonth(posts, monthOf(posts[posts.length - 1]!.publishedAt));
    return { lists: [month.length > MONTH_LIST_ALL_MAX ? month.slice(-3 * MONTH_PAGE_SIZE) : month] };
  },
};
