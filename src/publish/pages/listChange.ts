/**
 * Where a post's change falls in an oldest-first list (the blog's posts, or one tag's), and so
 * which numbered pages of that list it touches: archive pages and sitemap chunks alike.
 */
import { ARCHIVE_PAGE_SIZE, archivePageCount, archivePagesAffected, indexOfPost, positionOf } from '../render/archive.js';
import type { SitePostSummary } from '../../domain/siteTypes.js';
import type { PostChangeInput } from './siteView.js';

export interface ListChange {
  position: number | null;
  totalBefore: number;
  totalAfter: number;
  /**
   * How many changes of the blog the store may not reflect yet, this one included (the pending
   * post jobs, PostChangeInput.unpublishedChanges): the list's length before them is then only
   * known to within that many posts either way.
   */
  slack?: number;
}

/** Numbered pages to render and to remove; all of them when the change cannot be placed. */
export function pagesFor(change: ListChange, total: number, pageSize = ARCHIVE_PAGE_SIZE): { render: number[]; remove: number[] } {
  const slack = Math.max(1, change.slack ?? 1);
  const beyond = (count: number): number[] => Array.from({ length: archivePageCount(total + slack, pageSize) - count }, (_, i) => count + i + 1);
  if (change.position === null) {
    const count = archivePageCount(total, pageSize);
    return { render: Array.from({ length: count }, (_, i) => i + 1), remove: slack > 1 ? beyond(count) : [count + 1] };
  }
  const one = archivePagesAffected({ position: change.position, totalBefore: change.totalBefore, totalAfter: change.totalAfter }, pageSize);
  if (slack === 1 || change.totalBefore === change.totalAfter) return one;
  // Folded changes (a batch, or changes committed while it ran): the page that was the last one
  // before them may be any from the one `slack` posts back, and pages past the end up to
  // `slack` posts further are stale, so the batch re-renders and removes every candidate.
  const after = archivePageCount(total, pageSize);
  const render = new Set(one.render);
  for (let page = Math.max(1, archivePageCount(total - slack, pageSize)); page <= after; page += 1) render.add(page);
  return { render: [...render].sort((a, b) => a - b), remove: beyond(after) };
}

/**
 * Where in an oldest-first list the post is, or was, and how the list's length changed.
 * `joined`: the post is new to this list though it was live before (it joined a tag), so the
 * list grew and every page after it shifts.
 */
export function locate(list: readonly SitePostSummary[], change: PostChangeInput, joined = false): ListChange {
  const index = change.post ? indexIn(list, change.post) : -1;
  const slack = change.unpublishedChanges ?? 1;
  if (index >= 0) {
    const inserted = change.wasLive === false || joined;
    return { position: index, totalBefore: inserted ? list.length - 1 : list.length, totalAfter: list.length, slack };
  }
  if (!change.previousPublishedAt) return { position: null, totalBefore: list.length + 1, totalAfter: list.length, slack };
  const position = positionOf(list, { id: change.postId, publishedAt: change.previousPublishedAt });
  return { position, totalBefore: list.length + 1, totalAfter: list.length, slack };
}

/**
 * Where a live post sits in an oldest-first list: a binary search by its (publishedAt, id), so a
 * publish in a big blog does not walk the list. The walk stays as the answer should the list's
 * copy of the post carry another date than the post read for rendering.
 */
export function indexIn(list: readonly SitePostSummary[], post: { id: string; publishedAt: string }): number {
  const at = indexOfPost(list, post);
  return at >= 0 ? at : list.findIndex((p) => p.id === post.id);
}

/** The numbered pages of a change within 1..count, and the keys of those beyond it. */
export function numberedPages(
  pages: { render: number[]; remove: number[] },
  count: number,
  keyOf: (page: number) => string,
): { render: number[]; remove: string[] } {
  return { render: pages.render.filter((page) => page >= 1 && page <= count), remove: pages.remove.filter((page) => page > count).map(keyOf) };
}
