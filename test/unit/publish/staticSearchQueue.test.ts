/**
 * The static search index's queue of post changes (publish/stages/staticSearchQueue.ts): changes
 * that arrive while a write runs, and in the pause after it, are folded into the next write, so a
 * burst costs a write per pause, not per change. The writes are a real StaticIndexWriter's, into
 * a folder store; the index is read back and compared with a fresh build of the same posts.
 */
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { inMemoryMarks, StaticSearchQueue } from '../../../src/publish/stages/staticSearchQueue.js';
import type { SearchDocument } from '../../../src/search/searchTypes.js';
import { StaticIndexWriter } from '../../../src/search/static/staticIndexWriter.js';
import { FsSiteStore } from '../../../src/storage/fsSiteStore.js';
import { readStaticIndex } from '../../support/staticSearchIndex.js';
import { testBlog } from '../../support/testBlog.js';
import { testTempDir } from '../../support/tempDir.js';
import { searchDoc } from '../search/docFactory.js';

const blog = testBlog('queue');

/** Four posts, made once (each made document takes the next date). */
const docs: SearchDocument[] = [0, 1, 2, 3].map((i) => searchDoc({ id: `p${i}`, title: `Harbour note ${i}`, body: `lantern${i % 3} word${i}` }));
const doc = (i: number): SearchDocument => docs[i]!;

/**
 * A queue over a real writer whose index holds the first post; `writes` records the posts of each
 * write, and `firstWritten` settles once the first has landed.
 */
async function setUp(gapMs: number) {
  const store = new FsSiteStore({ root: join(testTempDir('folio-static-queue-'), 'site') });
  const writer = new StaticIndexWriter(store, { cacheControl: 'public, max-age=60' });
  await writer.rebuild(blog.slug, [doc(0)]);
  const writes: string[][] = [];
  let firstDone!: () => void;
  const firstWritten = new Promise<void>((resolve) => (firstDone = resolve));
  const queue = new StaticSearchQueue({
    write: async (_blog, changed) => {
      writes.push(changed.map((d) => d.id));
      const change = await writer.upsert(blog.slug, changed);
      if (writes.length === 1) firstDone();
      return change?.written ?? [];
    },
    rebuild: async () => [],
    exists: async () => true,
    behind: inMemoryMarks(),
    onChange: async () => undefined,
    onError: (err) => {
      throw err;
    },
    gapMs,
  });
  return { store, queue, writes, firstWritten };
}

describe('static search queue', () => {
  it('folds the changes that arrive during a write and the pause after it into the next write', async () => {
    // A pause long enough that no loaded machine sends the third change after the second write began.
    const { store, queue, writes, firstWritten } = await setUp(2_000);
    await queue.add(blog, [doc(1)], []);
    await queue.add(blog, [doc(2)], []);
    // A change shortly after the first write, while the queue pauses before the next.
    await firstWritten;
    await sleep(20);
    await queue.add(blog, [doc(3)], []);
    await queue.idle();
    expect(writes).toEqual([['p1'], ['p2', 'p3']]);

    const fresh = new FsSiteStore({ root: join(testTempDir('folio-static-fresh-'), 'site') });
    await new StaticIndexWriter(fresh, { cacheControl: 'public, max-age=60' }).rebuild(blog.slug, docs);
    expect(await readStaticIndex(store, blog.slug)).toEqual(await readStaticIndex(fresh, blog.slug));
  });

  it('writes a lone change at once', async () => {
    // A pause before a lone write would outlast the test's time limit.
    const { queue, writes } = await setUp(60_000);
    await queue.add(blog, [doc(1)], []);
    await queue.idle();
    await queue.add(blog, [doc(2)], []);
    await queue.idle();
    expect(writes).toEqual([['p1'], ['p2']]);
  });

  it('writes a change queued while the mark was being cleared, under the mark again, and idle() waits for it', async () => {
    const writes: string[][] = [];
    const marks = inMemoryMarks();
    const markSets: boolean[] = [];
    let queue!: StaticSearchQueue;
    let arrived = false;
    queue = new StaticSearchQueue({
      write: async (_blog, changed) => {
        writes.push(changed.map((d) => d.id));
        return [];
      },
      rebuild: async () => [],
      exists: async () => true,
      behind: {
        get: (blogId) => marks.get(blogId),
        marked: () => marks.marked(),
        set: async (blogId, behind) => {
          markSets.push(behind);
          // A change that arrives while the drain clears the mark: it finds the drain still running.
          if (!behind && !arrived) {
            arrived = true;
            await queue.add(blog, [doc(2)], []);
          }
          await marks.set(blogId, behind);
        },
      },
      onChange: async () => undefined,
      onError: (err) => {
        throw err;
      },
      gapMs: 0,
    });
    await queue.add(blog, [doc(1)], []);
    await queue.idle();
    expect(writes).toEqual([['p1'], ['p2']]);
    // Marked for the first change, cleared, marked again for the late one, cleared once it is written.
    expect(markSets).toEqual([true, false, true, false]);
    expect(await marks.get(blog.id)).toBe(false);
  });
});
