/**
 * The archive index `/archive/` (years and months with their counts) and each month's page
 * `/archive/<yyyy>/<mm>/`. A post's change re-renders the index, whose size follows the months
 * and not the posts, and the months the post is or was in.
 */
import { monthCounts, monthOf, postsInMonth, renderArchiveIndexPage, renderMonthPage, type Month } from '../render/renderIndexPages.js';
import { monthKey } from '../render/renderPaths.js';
import { onePage, type PageType } from './pageType.js';

export const archiveIndex = onePage('archive index', (site) => renderArchiveIndexPage(site.ctx, site.posts));

export const monthPages: PageType<Month> = {
  name: 'month pages',
  all: (site) => monthCounts(site.posts),
  affectedBy: (site, change) => {
    const months = new Map<string, Month>();
    for (const publishedAt of [change.post?.publishedAt, change.previousPublishedAt]) {
      if (publishedAt) months.set(publishedAt.slice(0, 7), monthOf(publishedAt));
    }
    const render: Month[] = [];
    const remove: string[] = [];
    for (const month of months.values()) {
      if (postsInMonth(site.posts, month).length > 0) render.push(month);
      else remove.push(monthKey(site.ctx.blog.slug, month.year, month.month));
    }
    return { render, remove };
  },
  render: (site, month) => renderMonthPage(site.ctx, month, postsInMonth(site.posts, month)),
  pageId: ({ year, month }) => `${year}-${month}`,
  listedByNextPost: (posts) => ({ lists: [postsInMonth(posts, monthOf(posts[posts.length - 1]!.publishedAt))] }),
};
