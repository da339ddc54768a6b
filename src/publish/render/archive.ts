/**
 * How posts are spread over list pages. Archive pages are numbered from the OLDEST post
 * (page 1 holds the oldest ARCHIVE_PAGE_SIZE posts, ascending publishedAt then id), so that
 * publishing a post only changes the last page and never shifts every older page: a blog with
 * 10,000 posts re-renders one archive page per publish, not 500.
 *
 * Tag pages follow the same rule so a tag holding thousands of posts stays cheap too:
 * `tags/<tag>/index.html` lists the tag's newest TAG_PAGE_SIZE posts compactly (date and
 * title) and links to `tags/<tag>/page/<n>/index.html`, numbered from the tag's oldest post.
 */
import { tagSegment } from './renderPaths.js';
import { runSteps, runStepsCooperatively } from '../../lib/steps.js';

/** Fewest posts on the home page when the blog has that many (it shows whole archive pages: newestListing). */
export const HOME_PAGE_SIZE = 10;
/** Posts per archive page, for the blog and for each tag. */
export const ARCHIVE_PAGE_SIZE = 20;
/** Fewest posts listed on a tag's index page when the tag has that many (newestListing). */
export const TAG_PAGE_SIZE = 20;
/** Newest posts in rss.xml and feed.json. */
export const FEED_SIZE = 20;

export interface Ordered {
  id: string;
  publishedAt: string;
}

/** Oldest first: publishedAt, then id (the order SiteRepo reads them in). */
export function compareOldestFirst(a: Ordered, b: Ordered): number {
  if (a.publishedAt !== b.publishedAt) return a.publishedAt < b.publishedAt ? -1 : 1;
  if (a.id === b.id) return 0;
  return a.id < b.id ? -1 : 1;
}

/** How many posts of an oldest-first list come before `item` (where it is, or would be inserted): a binary search. */
export function positionOf(list: readonly Ordered[], item: Ordered): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (compareOldestFirst(list[mid]!, item) < 0) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * Index of the post in an oldest-first list, found by its place (publishedAt, id) rather than by
 * walking the list; -1 when it is not there.
 */
export function indexOfPost(list: readonly Ordered[], post: Ordered): number {
  const at = positionOf(list, post);
  return list[at]?.id === post.id ? at : -1;
}

export function sortOldestFirst<T extends Ordered>(posts: readonly T[]): T[] {
  return [...posts].sort(compareOldestFirst);
}

export function sortNewestFirst<T extends Ordered>(posts: readonly T[]): T[] {
  return [...posts].sort((a, b) => compareOldestFirst(b, a));
}

/** Number of archive pages for `total` posts (0 for an empty blog). */
export function archivePageCount(total: number, pageSize = ARCHIVE_PAGE_SIZE): number {
  return Math.ceil(Math.max(0, total) / pageSize);
}

/** Page (1-based) holding the post at 0-based `positionFromOldest`. */
export function archivePageOf(positionFromOldest: number, pageSize = ARCHIVE_PAGE_SIZE): number {
  return Math.floor(positionFromOldest / pageSize) + 1;
}

/** The posts of page `page`, from a list sorted oldest first. */
export function archivePageSlice<T>(oldestFirst: readonly T[], page: number, pageSize = ARCHIVE_PAGE_SIZE): T[] {
  return oldestFirst.slice((page - 1) * pageSize, page * pageSize);
}

/**
 * What a newest-first list (the home page, a tag's index) shows so that a reader who follows
 * "older posts" from it sees every post exactly once, newest to oldest: whole archive pages,
 * counted back from the newest, until there are at least `minimum` posts (so at most
 * `minimum + pageSize - 1`). Its "older" link goes to the archive page before them. The
 * numbering from the oldest post stays, so a publish still re-renders one archive page.
 */
export function newestListing(total: number, minimum: number, pageSize = ARCHIVE_PAGE_SIZE): { shown: number; olderPage: number | null } {
  if (total <= 0) return { shown: 0, olderPage: null };
  let first = archivePageCount(total, pageSize);
  let shown = total - (first - 1) * pageSize;
  while (shown < minimum && first > 1) {
    first--;
    shown += pageSize;
  }
  return { shown, olderPage: first > 1 ? first - 1 : null };
}

/** Most posts the home page can show (newestListing), so callers pass it enough of them. */
export const HOME_LIST_MAX = HOME_PAGE_SIZE + ARCHIVE_PAGE_SIZE - 1;
/** Most posts a tag's index page can show. */
export const TAG_LIST_MAX = TAG_PAGE_SIZE + ARCHIVE_PAGE_SIZE - 1;

export interface ArchiveChange {
  /** 0-based position (oldest first) of the post added, removed or edited. */
  position: number;
  totalBefore: number;
  totalAfter: number;
}

/**
 * Archive pages a change touches. An edit in place touches the post's page only. Adding or
 * removing a post shifts the posts after it, so pages from its page to the end are rendered
 * again; appending the newest post therefore touches the last page only, plus the previous
 * last page when a new page starts (it gains its "newer posts" link) or the page before the
 * removed last page (it loses that link). `remove` lists pages that no longer exist.
 */
export function archivePagesAffected(change: ArchiveChange, pageSize = ARCHIVE_PAGE_SIZE): { render: number[]; remove: number[] } {
  const before = archivePageCount(change.totalBefore, pageSize);
  const after = archivePageCount(change.totalAfter, pageSize);
  const first = archivePageOf(change.position, pageSize);
  const render = new Set<number>();
  if (change.totalBefore === change.totalAfter) {
    if (first <= after) render.add(first);
  } else {
    for (let page = first; page <= after; page += 1) render.add(page);
    if (before !== after && Math.min(before, after) >= 1) render.add(Math.min(before, after));
  }
  const remove: number[] = [];
  for (let page = after + 1; page <= before; page += 1) remove.push(page);
  return { render: [...render].sort((a, b) => a - b), remove };
}

export interface TagGroup<T> {
  /** Display name: the spelling used by the tag's newest post. */
  name: string;
  /** Path segment (see tagSegment); tags that map to the same segment share one page. */
  segment: string;
  /** The tag's posts, oldest first. */
  posts: T[];
}

/** Every tag of the given posts with its posts, ordered by segment. */
export function collectTags<T extends Ordered & { tags: readonly string[] }>(posts: readonly T[]): TagGroup<T>[] {
  return runSteps(collectTagsSteps(posts));
}

/** Posts grouped between pauses of collectTagsCooperatively. */
const TAG_STEP = 2_048;

/** collectTags on the server's event loop, in slices: at 50,000 posts it held the loop about 60 ms in one go. */
export function collectTagsCooperatively<T extends Ordered & { tags: readonly string[] }>(posts: readonly T[]): Promise<TagGroup<T>[]> {
  return runStepsCooperatively(collectTagsSteps(posts));
}

/** The grouping as steps (lib/steps.ts): what the two functions above run, and what the tests count. */
export function* collectTagsSteps<T extends Ordered & { tags: readonly string[] }>(posts: readonly T[]): Generator<void, TagGroup<T>[]> {
  const groups = new Map<string, TagGroup<T>>();
  const sorted = sortOldestFirst(posts);
  yield;
  for (let i = 0; i < sorted.length; i++) {
    const post = sorted[i]!;
    const seen = new Set<string>();
    for (const tag of post.tags) {
      const segment = tagSegment(tag);
      if (seen.has(segment)) continue;
      seen.add(segment);
      const group = groups.get(segment);
      if (group) {
        group.name = tag;
        group.posts.push(post);
      } else {
        groups.set(segment, { name: tag, segment, posts: [post] });
      }
    }
    if ((i + 1) % TAG_STEP === 0) yield;
  }
  return [...groups.values()].sort((a, b) => (a.segment < b.segment ? -1 : a.segment > b.segment ? 1 : 0));
}
