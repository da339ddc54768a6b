/**
 * The archive pages `/page/<n>`, numbered from the oldest post, so a new post re-renders the
 * last page or two and never shifts the older ones (archive.ts).
 */
import { ARCHIVE_PAGE_SIZE, archivePageCount, archivePageSlice } from '../render/archive.js';
import { renderArchivePage } from '../render/renderListPages.js';
import { archiveKey } from '../render/renderPaths.js';
import { locate, numberedPages, pagesFor } from './listChange.js';
import type { PageType } from './pageType.js';

export const archivePages: PageType<number> = {
  name: 'archive pages',
  all: (site) => Array.from({ length: archivePageCount(site.posts.length) }, (_, i) => i + 1),
  affectedBy: (site, change) => {
    const { posts, ctx } = site;
    return numberedPages(pagesFor(locate(posts, change), posts.length), archivePageCount(posts.length), (page) => archiveKey(ctx.blog.slug, page));
  },
  render: (site, page) => renderArchivePage(site.ctx, page, archivePageSlice(site.posts, page), archivePageCount(site.posts.length)),
  // The last page, and the one before it, which gains a link when a new page starts.
  listedByNextPost: () => ({ newest: 2 * ARCHIVE_PAGE_SIZE }),
};
