/**
 * A post's change, rendered by renderPostChange and applied to a store that held the full render
 * of the blog before it, leaves exactly the full render of the blog after it: every object, byte
 * for byte, and nothing more. The inputs are built the way Publisher.renderChange builds them
 * from the database (publisher.ts), and the job payloads the way services/postDeps.ts records
 * them. A live post given another date is not among the changes: the publisher renders the
 * whole blog for it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderPostChange } from '../../../src/publish/postChange.js';
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

/** Applies a change the way writeSite does: every object written, then the deletions but any key written. */
function applyChange(store: Store, rows: Blog, postId: string, payload: Payload): void {
  const { objects, deletions } = renderPostChange(changeInput(rows, postId, payload));
  put(store, objects);
  const written = new Set(objects.map((o) => o.key));
  for (const key of deletions) if (!written.has(key)) store.delete(key);
}

function runChanges(rows: Blog, changes: readonly Change[]): void {
  const store = put(new Map(), fullRender(rows));
  changes.forEach((change, step) => {
    const done = carryOut(rows, change, step);
    if (!done) return;
    applyChange(store, rows, done.postId, done.payload);
    expect(differences(store, rows).join(' '), `after ${change.kind} (step ${step})`).toEqual('');
  });
}

describe('renderPostChange against the full render', () => {
  it('leaves the full render after a publish, an edit, a retag, a rename, a backdated publish, an unpublish, a republish and a delete', () => {
    runChanges(seed(39), [
      { kind: 'publish', tags: ['rust', 'notes'] },
      { kind: 'title', pick: 7, tags: [] },
      { kind: 'retag', pick: 12, tags: ['Go', 'fresh'] },
      { kind: 'rename', pick: 3, tags: [] },
      { kind: 'backdate', day: 10, tags: ['C++'] },
      { kind: 'unpublish', pick: 0, tags: [] },
      { kind: 'republish', pick: 0, tags: [] },
      { kind: 'unpublish', pick: 40, tags: [] },
      { kind: 'delete', pick: 3, tags: [] },
    ]);
  });

  it('writes with every change the objects no post changes, so a store that lost them is mended', () => {
    const rows = seed(5);
    const unchanging = fullRender(rows).filter(
      (o) => o.key.startsWith('notes/assets/') || ['notes/search/index.html', 'notes/404.html', 'notes/robots.txt'].includes(o.key),
    );
    expect(unchanging.length).toBeGreaterThan(3);
    const done = carryOut(rows, { kind: 'title', pick: 1, tags: [] }, 0)!;
    const { objects } = renderPostChange(changeInput(rows, done.postId, done.payload));
    for (const object of unchanging)
      expect(
        objects.find((o) => o.key === object.key),
        object.key,
      ).toEqual(object);
  });

  it('holds for any run of changes', () => {
    const change = anyChange;
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 45 }), fc.array(change, { minLength: 1, maxLength: 6 }), (count, changes) => runChanges(seed(count), changes)),
      { numRuns: 30 },
    );
  });

  // A live post that joins a tag grows the tag's list, so the tag's archive pages after it shift
  // by one (here a second page appears) and are rendered again.
  it('a live post that joins a tag re-renders the tag archive pages it shifts', () => {
    runChanges(seed(35), [{ kind: 'retag', pick: 3, tags: ['notes'] }]);
  });
});
