/**
 * A batch of post changes (pipelines/publishPostChange.ts runBatch), each loaded against the
 * blog as it is after all of them and rendered together by renderPostChanges, applied to a store
 * that held the full render from before the batch, leaves exactly the full render after it —
 * and renders each shared page once, however many changes fold.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderPostChange, renderPostChanges } from '../../../src/publish/postChange.js';
import { viewOfChange } from '../../../src/publish/pages/siteView.js';
import { MONTH_LIST_ALL_MAX } from '../../../src/publish/render/renderIndexPages.js';
import { buildPost } from './siteFixtures.js';
import {
  anyChange,
  carryOut,
  changeInput,
  differences,
  fullRender,
  put,
  seed,
  type Blog,
  type Change,
  type Payload,
  type Store,
} from './postChangeFixtures.js';

/** Carries out the batch's changes, then renders them together as the pipeline does; the differences left against the full render. */
function runBatch(rows: Blog, changes: readonly Change[], slack?: number): { differences: string[]; keys: string[] } {
  const store: Store = put(new Map(), fullRender(rows));
  const done: { postId: string; payload: Payload }[] = [];
  changes.forEach((change, step) => {
    const one = carryOut(rows, change, step);
    if (one) done.push(one);
  });
  if (done.length === 0) return { differences: [], keys: [] };
  const inputs = done.map(({ postId, payload }) => ({ ...changeInput(rows, postId, payload), unpublishedChanges: slack ?? done.length }));
  const { objects, deletions } = renderPostChanges(viewOfChange(inputs[0]!), inputs);
  put(store, objects);
  const written = new Set(objects.map((o) => o.key));
  for (const key of deletions) if (!written.has(key)) store.delete(key);
  return { differences: differences(store, rows), keys: objects.map((o) => o.key) };
}

const publishes = (count: number, tags: string[] = ['notes']): Change[] => Array.from({ length: count }, () => ({ kind: 'publish', tags }));

describe('renderPostChanges: a batch of changes against the full render', () => {
  it('renders every page once: 12 publishes write the home page, the feeds and each sitemap once', () => {
    const { differences: left, keys } = runBatch(seed(30), publishes(12));
    expect(left).toEqual([]);
    expect(new Set(keys).size).toBe(keys.length);
    for (const key of ['notes/index.html', 'notes/rss.xml', 'notes/feed.json', 'notes/sitemap.xml', 'notes/llms.txt']) expect(keys).toContain(key);
  });

  // 20 posts fill page 1; 25 more start pages 2 and 3. Each publish, placed in the final list,
  // sees only pages 2 and 3 move: page 1, the last page before the batch, gains its link to page
  // 2 through the slack.
  it('re-renders the page that was the last one before the batch when the batch starts new pages', () => {
    expect(runBatch(seed(20), publishes(25)).differences).toEqual([]);
    // Without the slack (each change placed as if alone), page 1 keeps its old pagination.
    expect(runBatch(seed(20), publishes(25), 1).differences).toEqual(['notes/page/1/index.html']);
  });

  it('removes every archive page and sitemap chunk past the new end when a batch takes many posts off', () => {
    const removals: Change[] = Array.from({ length: 25 }, () => ({ kind: 'unpublish', pick: 1_000, tags: [] }));
    expect(runBatch(seed(45), removals).differences).toEqual([]);
    const deletions: Change[] = Array.from({ length: 23 }, (_, i) => ({ kind: 'delete', pick: i * 7, tags: [] }));
    expect(runBatch(seed(44), deletions).differences).toEqual([]);
  });

  it('a batch of one renders what a single change renders', () => {
    const rows = seed(33);
    const done = carryOut(rows, { kind: 'publish', tags: ['rust'] }, 0)!;
    const input = changeInput(rows, done.postId, done.payload);
    expect(renderPostChanges(viewOfChange(input), [input])).toEqual(renderPostChange(input));
  });

  it('holds for any batch of changes, the same post changed twice included', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 45 }), fc.array(anyChange, { minLength: 1, maxLength: 12 }), (count, changes) => {
        expect(runBatch(seed(count), changes).differences).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });

  // Changes committed while the batch ran are in the listing already but are the next batch's:
  // the slack counts them too (every pending post job), and the union still covers the gap.
  it('holds when the listing is ahead of the batch: the first publishes render now, the rest in a later batch', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 45 }), fc.integer({ min: 1, max: 30 }), fc.integer({ min: 1, max: 30 }), (count, now, later) => {
        const rows = seed(count);
        const store: Store = put(new Map(), fullRender(rows));
        const done = publishes(now + later).map((change, step) => carryOut(rows, change, step)!);
        // Pending when each batch loads: all of them, then the later ones.
        for (const [part, slack] of [
          [done.slice(0, now), done.length],
          [done.slice(now), later],
        ] as const) {
          const inputs = part.map(({ postId, payload }) => ({ ...changeInput(rows, postId, payload), unpublishedChanges: slack }));
          const { objects, deletions } = renderPostChanges(viewOfChange(inputs[0]!), inputs);
          put(store, objects);
          const written = new Set(objects.map((o) => o.key));
          for (const key of deletions) if (!written.has(key)) store.delete(key);
        }
        expect(differences(store, rows)).toEqual([]);
      }),
      { numRuns: 30 },
    );
  });
});

/**
 * `seed(others)` and `count` posts five minutes apart from 1 February 2027, the month the
 * fixtures' publishes land in (from 5 February, so after these): a month that is paged
 * (MONTH_LIST_ALL_MAX) or close to it.
 */
function crowdedMonth(count: number, others = 5): Blog {
  const rows = seed(others);
  for (let i = 0; i < count; i++) {
    const publishedAt = new Date(Date.UTC(2027, 1, 1) + i * 300_000).toISOString();
    const id = `month_${String(i).padStart(3, '0')}`;
    rows.set(id, {
      post: buildPost({ id, slug: `month-${i}`, title: `Month post ${i}`, tags: ['notes'], publishedAt, createdAt: publishedAt, updatedAt: publishedAt }),
      live: true,
      redirects: [],
    });
  }
  return rows;
}

describe('a month of many posts, paged, against the full render', () => {
  it('pages a month past MONTH_LIST_ALL_MAX posts, and a batch that crosses the line either way leaves the full render', () => {
    const crowded = fullRender(crowdedMonth(250)).map((o) => o.key);
    expect(crowded.filter((key) => key.startsWith('notes/archive/2027/02/page/')).sort()).toEqual(
      [1, 2, 3].map((page) => `notes/archive/2027/02/page/${page}/index.html`),
    );
    expect(fullRender(crowdedMonth(MONTH_LIST_ALL_MAX)).some((o) => o.key.includes('/archive/2027/02/page/'))).toBe(false);
    // Up: 195 + 12 new posts; down: 205 - 12 unpublished.
    expect(runBatch(crowdedMonth(195), publishes(12)).differences).toEqual([]);
    const unpublish: Change[] = Array.from({ length: 12 }, () => ({ kind: 'unpublish', pick: 1_000, tags: [] }));
    expect(runBatch(crowdedMonth(205, 0), unpublish).differences).toEqual([]);
  });

  it('a publish into a paged month renders its page and the numbered pages it touches, not the whole month', () => {
    const { differences: left, keys } = runBatch(crowdedMonth(450), publishes(1));
    expect(left).toEqual([]);
    const monthKeys = keys.filter((key) => key.startsWith('notes/archive/2027/02/'));
    // The month's page and its last numbered page (and the one before it, which gains its link).
    expect(monthKeys.length).toBeLessThanOrEqual(3);
    expect(monthKeys).toContain('notes/archive/2027/02/index.html');
  });

  it('holds for any batch of changes to a paged month', () => {
    fc.assert(
      fc.property(fc.integer({ min: 190, max: 320 }), fc.array(anyChange, { minLength: 1, maxLength: 12 }), (count, changes) => {
        expect(runBatch(crowdedMonth(count), changes).differences).toEqual([]);
      }),
      { numRuns: 25 },
    );
  });
});
