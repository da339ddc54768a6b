import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { monthCounts, postsInMonth } from '../../../src/publish/render/renderIndexPages.js';
import {
  ARCHIVE_PAGE_SIZE,
  archivePageCount,
  archivePageOf,
  archivePageSlice,
  archivePagesAffected,
  collectTags,
  collectTagsCooperatively,
  collectTagsSteps,
  compareOldestFirst,
  indexOfPost,
  newestListing,
  positionOf,
  sortOldestFirst,
} from '../../../src/publish/render/archive.js';
import { createRenderContext } from '../../../src/publish/render/renderContext.js';
import { renderArchivePage } from '../../../src/publish/render/renderListPages.js';
import type { SitePost } from '../../../src/domain/siteTypes.js';
import { buildBlog, defaultTheme, numberedPosts } from './siteFixtures.js';

/** Every archive page of a blog, as key → body. */
function archivePages(posts: readonly SitePost[]): Map<string, string> {
  const ctx = createRenderContext({ theme: defaultTheme(), blog: buildBlog() });
  const oldestFirst = sortOldestFirst(posts);
  const count = archivePageCount(oldestFirst.length);
  const pages = new Map<string, string>();
  for (let page = 1; page <= count; page += 1) {
    const object = renderArchivePage(ctx, page, archivePageSlice(oldestFirst, page), count);
    pages.set(object.key, String(object.body));
  }
  return pages;
}

function changedPages(before: Map<string, string>, after: Map<string, string>): string[] {
  const keys = new Set([...before.keys(), ...after.keys()]);
  return [...keys].filter((key) => before.get(key) !== after.get(key)).sort();
}

describe('archive page numbering', () => {
  it.each([
    [0, 0],
    [1, 1],
    [ARCHIVE_PAGE_SIZE - 1, 1],
    [ARCHIVE_PAGE_SIZE, 1],
    [ARCHIVE_PAGE_SIZE + 1, 2],
    [ARCHIVE_PAGE_SIZE * 3, 3],
    [ARCHIVE_PAGE_SIZE * 3 + 1, 4],
  ])('%i posts make %i pages', (total, pages) => {
    expect(archivePageCount(total)).toBe(pages);
  });

  it('counts positions from the oldest post', () => {
    expect(archivePageOf(0)).toBe(1);
    expect(archivePageOf(ARCHIVE_PAGE_SIZE - 1)).toBe(1);
    expect(archivePageOf(ARCHIVE_PAGE_SIZE)).toBe(2);
  });

  it('puts the oldest posts on page 1, ordered by publishedAt then id', () => {
    const [a, b, c] = numberedPosts(3);
    const tie = { ...c!, id: 'post_00000', publishedAt: a!.publishedAt };
    expect(sortOldestFirst([c!, b!, a!, tie]).map((p) => p.id)).toEqual(['post_00000', a!.id, b!.id, c!.id]);
    const posts = numberedPosts(45);
    expect(archivePageSlice(posts, 1).map((p) => p.slug)).toEqual(posts.slice(0, 20).map((p) => p.slug));
    expect(archivePageSlice(posts, 3).map((p) => p.slug)).toEqual(['post-41', 'post-42', 'post-43', 'post-44', 'post-45']);
  });

  it('lists the newest whole archive pages, at least the minimum, and links the page before them', () => {
    expect(newestListing(0, 10)).toEqual({ shown: 0, olderPage: null });
    expect(newestListing(7, 10)).toEqual({ shown: 7, olderPage: null });
    expect(newestListing(20, 10)).toEqual({ shown: 20, olderPage: null });
    expect(newestListing(25, 10)).toEqual({ shown: 25, olderPage: null }); // page 2 has 5: pages 1 and 2
    expect(newestListing(31, 10)).toEqual({ shown: 11, olderPage: 1 }); // page 2 has 11
    expect(newestListing(41, 10)).toEqual({ shown: 21, olderPage: 1 }); // page 3 has 1: pages 2 and 3
    expect(newestListing(1000, 10)).toEqual({ shown: 20, olderPage: 49 });
    expect(newestListing(1001, 20)).toEqual({ shown: 21, olderPage: 49 });
  });
});

describe('publishing a post', () => {
  it('changes only the last archive page while it has room', () => {
    const posts = numberedPosts(45);
    const before = archivePages(posts.slice(0, 44));
    const after = archivePages(posts);
    expect(changedPages(before, after)).toEqual(['notes/page/3/index.html']);
    expect(archivePagesAffected({ position: 44, totalBefore: 44, totalAfter: 45 })).toEqual({ render: [3], remove: [] });
  });

  it('starts a new page at a boundary, and the previous last page only gains its "newer" link', () => {
    const posts = numberedPosts(41);
    const before = archivePages(posts.slice(0, 40));
    const after = archivePages(posts);
    expect(changedPages(before, after)).toEqual(['notes/page/2/index.html', 'notes/page/3/index.html']);
    const page2 = after.get('notes/page/2/index.html')!;
    expect(before.get('notes/page/2/index.html')).not.toContain('href="/page/3"');
    expect(page2).toContain('<a class="pager-newer" href="/page/3">');
    expect(archivePagesAffected({ position: 40, totalBefore: 40, totalAfter: 41 })).toEqual({ render: [2, 3], remove: [] });
  });

  it('never changes the pages before the last one, however many posts follow', () => {
    const posts = numberedPosts(100);
    const first = archivePages(posts.slice(0, 60));
    const later = archivePages(posts);
    expect(later.get('notes/page/1/index.html')).toBe(first.get('notes/page/1/index.html'));
    expect(later.get('notes/page/2/index.html')).toBe(first.get('notes/page/2/index.html'));
  });

  it('predicts the pages an unpublish or an edit touches', () => {
    // Removing the 5th oldest of 41 posts shifts every later post.
    const posts = numberedPosts(41);
    const after = posts.filter((_, index) => index !== 4);
    expect(changedPages(archivePages(posts), archivePages(after))).toEqual(['notes/page/1/index.html', 'notes/page/2/index.html', 'notes/page/3/index.html']);
    expect(archivePagesAffected({ position: 4, totalBefore: 41, totalAfter: 40 })).toEqual({ render: [1, 2], remove: [3] });
    expect(archivePagesAffected({ position: 25, totalBefore: 41, totalAfter: 41 })).toEqual({ render: [2], remove: [] });
    expect(archivePagesAffected({ position: 0, totalBefore: 1, totalAfter: 0 })).toEqual({ render: [], remove: [1] });
    expect(archivePagesAffected({ position: 0, totalBefore: 0, totalAfter: 1 })).toEqual({ render: [1], remove: [] });
  });
});

describe('collectTags', () => {
  it('groups tags by path segment, oldest post first, named after the newest spelling', () => {
    const [a, b, c] = numberedPosts(3);
    const groups = collectTags([
      { ...c!, tags: ['Static Sites', '블로그'] },
      { ...a!, tags: ['static sites'] },
      { ...b!, tags: ['C++', 'c'] },
    ]);
    expect(groups.map((g) => [g.segment, g.name, g.posts.map((p) => p.id)])).toEqual([
      ['c', 'c', [b!.id]],
      ['cplusplus', 'C++', [b!.id]],
      ['static-sites', 'Static Sites', [a!.id, c!.id]],
      ['블로그', '블로그', [c!.id]],
    ]);
  });

  it('in slices gives the same groups, pausing every 2,048 posts', async () => {
    const posts = numberedPosts(5_000).map((post, i) => ({ ...post, tags: [`tag ${i % 7}`, i % 2 ? 'Odd' : 'even', 'ALL'] }));
    const steps = collectTagsSteps(posts);
    let pauses = 0;
    while (!steps.next().done) pauses++;
    // After the sort, then after 2,048 and 4,096 posts.
    expect(pauses).toBe(3);
    const groups = await collectTagsCooperatively(posts.toReversed());
    expect(groups).toEqual(collectTags(posts));
    expect(groups.find((group) => group.segment === 'all')?.posts).toHaveLength(5_000);
  });
});

describe('binary searches over oldest-first lists', () => {
  // Dates crowd into a few months and repeat exactly, ids break the ties: the cases where a
  // search by (publishedAt, id) could slip.
  const postsArb = fc
    .array(
      fc.record({
        id: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'),
        publishedAt: fc.constantFrom(
          '2023-12-31T23:59:59.999Z',
          '2024-01-01T00:00:00.000Z',
          '2024-01-15T10:00:00.000Z',
          '2024-02-29T12:00:00.000Z',
          '2024-11-30T00:00:00.000Z',
          '2025-01-01T00:00:00.000Z',
        ),
      }),
      { maxLength: 40 },
    )
    .map((posts) => sortOldestFirst([...new Map(posts.map((p) => [p.id, p])).values()]));

  it('monthCounts and postsInMonth agree with counting and filtering every post', () => {
    fc.assert(
      fc.property(postsArb, (posts) => {
        const naive = new Map<string, number>();
        for (const p of posts) naive.set(p.publishedAt.slice(0, 7), (naive.get(p.publishedAt.slice(0, 7)) ?? 0) + 1);
        const expected = [...naive]
          .sort(([a], [b]) => (a < b ? 1 : -1))
          .map(([id, count]) => ({ year: Number(id.slice(0, 4)), month: Number(id.slice(5)), count }));
        expect(monthCounts(posts)).toEqual(expected);
        for (const { year, month } of expected) {
          const id = `${year}-${String(month).padStart(2, '0')}`;
          expect(postsInMonth(posts, { year, month })).toEqual(posts.filter((p) => p.publishedAt.startsWith(id)));
        }
        expect(postsInMonth(posts, { year: 2024, month: 3 })).toEqual([]);
      }),
    );
  });

  it('indexOfPost and positionOf find what a walk of the list finds', () => {
    fc.assert(
      fc.property(
        postsArb,
        fc.record({ id: fc.constantFrom('a', 'd', 'z'), publishedAt: fc.constantFrom('2024-01-01T00:00:00.000Z', '2024-06-01T00:00:00.000Z') }),
        (posts, probe) => {
          for (const post of posts) expect(indexOfPost(posts, post)).toBe(posts.indexOf(post));
          // Found when the list holds the post at that date; never another post (ids are unique).
          const found = indexOfPost(posts, probe);
          if (posts.some((p) => p.id === probe.id && p.publishedAt === probe.publishedAt)) expect(found).toBe(posts.findIndex((p) => p.id === probe.id));
          else if (found >= 0) expect(posts[found]!.id).toBe(probe.id);
          expect(positionOf(posts, probe)).toBe(posts.filter((p) => compareOldestFirst(p, probe) < 0).length);
        },
      ),
    );
  });
});
