/**
 * Each tag's page `/tags/<tag>` (its newest posts) with its archive pages
 * `/tags/<tag>/page/<n>`, numbered from the tag's oldest post like the blog's; and the tag index
 * `/tags/`, every tag with its count.
 */
import { ARCHIVE_PAGE_SIZE, TAG_LIST_MAX, archivePageCount, archivePageSlice } from '../render/archive.js';
import { renderTagIndexPage } from '../render/renderIndexPages.js';
import { renderTagArchivePage, renderTagPage } from '../render/renderListPages.js';
import { tagArchiveKey, tagKey, tagSegment } from '../render/renderPaths.js';
import { locate, numberedPages, pagesFor } from './listChange.js';
import { onePage, type PageType } from './pageType.js';

/** A tag's page (`page` null) or one of its archive pages. */
export interface TagPage {
  /** Display name: the spelling used by the tag's newest post. */
  name: string;
  segment: string;
  page: number | null;
}

export const tagPages: PageType<TagPage> = {
  name: 'tag pages',
  all: (site) =>
    site
      .tagGroups()
      .flatMap(({ name, segment, posts }) => [
        { name, segment, page: null },
        ...Array.from({ length: archivePageCount(posts.length) }, (_, i) => ({ name, segment, page: i + 1 })),
      ]),
  affectedBy: (site, change) => {
    const blog = site.ctx.blog.slug;
    const render: TagPage[] = [];
    const remove: string[] = [];
    const tags = new Map<string, string>();
    for (const tag of [...(change.previousTags ?? []), ...(change.post?.tags ?? [])]) tags.set(tagSegment(tag), tag);
    for (const [segment, fallbackName] of tags) {
      const tagged = site.tagged(segment);
      if (tagged.length === 0) {
        remove.push(tagKey(blog, fallbackName), tagArchiveKey(blog, fallbackName, 1));
        continue;
      }
      const name = tagged[tagged.length - 1]!.tags.find((t) => tagSegment(t) === segment) ?? fallbackName;
      render.push({ name, segment, page: null });
      const joined = change.wasLive === true && change.tagsChanged === true && !(change.previousTags ?? []).some((tag) => tagSegment(tag) === segment);
      const pages = numberedPages(pagesFor(locate(tagged, change, joined), tagged.length), archivePageCount(tagged.length), (page) =>
        tagArchiveKey(blog, name, page),
      );
      render.push(...pages.render.map((page) => ({ name, segment, page })));
      remove.push(...pages.remove);
    }
    return { render, remove };
  },
  render: (site, { name, segment, page }) => {
    const tagged = site.tagged(segment);
    if (page === null) return renderTagPage(site.ctx, name, tagged.slice(-TAG_LIST_MAX), tagged.length);
    return renderTagArchivePage(site.ctx, name, page, archivePageSlice(tagged, page, ARCHIVE_PAGE_SIZE), archivePageCount(tagged.length));
  },
  pageId: ({ segment, page }) => `${segment}/${page ?? ''}`,
  // A tag's page, its last archive page and the one before it.
  listedByNextPost: () => ({ newestOfEachTag: Math.max(TAG_LIST_MAX, 2 * ARCHIVE_PAGE_SIZE) }),
};

export const tagIndex = onePage('tag index', (site) => renderTagIndexPage(site.ctx, site.tagGroups()));
