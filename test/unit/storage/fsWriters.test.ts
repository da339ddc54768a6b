/**
 * The folder store's register of writers (#31: a 100,000-post blog's tree is 360,000 entries,
 * several seconds of a core at every start): a process marks itself before its first temp file
 * and unmarks on a clean close, and the start walks the tree for leftover temp files only when a
 * marked process is gone or no walk has completed yet. Real files in a temp folder.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { removeLeftoverTemps } from '../../../src/storage/fsLeftovers.js';
import { FsSiteStore } from '../../../src/storage/fsSiteStore.js';
import { WRITERS_DIR } from '../../../src/storage/fsWriters.js';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

const freshRoot = (): string => {
  const root = mkdtempSync(join(tmpdir(), 'folio-writers-'));
  roots.push(root);
  return root;
};
const registerOf = (root: string): string => join(root, '.meta', WRITERS_DIR);
const marks = (root: string): string[] => (existsSync(registerOf(root)) ? readdirSync(registerOf(root)).filter((name) => name !== 'swept') : []);
const put = (path: string): string => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, 'x');
  return path;
};
/** The pid of a process that has exited (a killed writer's). */
const deadPid = (): number => spawnSync(process.execPath, ['-e', '0']).pid!;
const page = { contentType: 'text/html; charset=utf-8', cacheControl: 'no-cache' };

describe('the register of writers', () => {
  it('marks the process before its first write and unmarks it once a close finds no write in flight', async () => {
    const root = freshRoot();
    const store = new FsSiteStore({ root });
    expect(marks(root)).toEqual([]);

    await store.put('blog/index.html', '<p>one</p>', page);
    const [mark] = marks(root);
    expect(mark).toMatch(new RegExp(`^${process.pid}-[0-9a-f]+$`));

    // A put still landing when close is called: close waits for it, then unmarks.
    let landed = false;
    const landing = store.put('blog/feed.xml', '<rss/>', { contentType: 'application/rss+xml', cacheControl: 'max-age=60' }).then(() => {
      landed = true;
    });
    await store.close();
    expect(landed).toBe(true);
    await landing;
    expect((await store.getBody('blog/feed.xml'))?.toString()).toBe('<rss/>');
    expect(marks(root)).toEqual([]);

    // Written to after its close: marked again, under the same name.
    await store.put('blog/index.html', '<p>two</p>', page);
    expect(marks(root)).toEqual([mark]);
    await store.close();
    expect(marks(root)).toEqual([]);
  });

  it('walks the tree while no walk has completed, then only when a marked writer is gone', async () => {
    const root = freshRoot();
    const dead = deadPid();
    // No register yet (a store an older Folio wrote): walked.
    const first = put(join(root, 'blog', 'post', `.tmp-${dead}-0123456789ab-1`));
    expect(await removeLeftoverTemps(root, registerOf(root))).toEqual([`blog/post/.tmp-${dead}-0123456789ab-1`]);
    expect(existsSync(first)).toBe(false);

    // Every writer closed cleanly since: not walked, so a temp file no mark accounts for stays.
    const unaccounted = put(join(root, 'blog', `.tmp-${dead}-0123456789ab-2`));
    expect(await removeLeftoverTemps(root, registerOf(root))).toEqual([]);
    expect(existsSync(unaccounted)).toBe(true);

    // A writer still running (this test's parent) is no reason to walk either.
    put(join(registerOf(root), `${process.ppid}-abcdef012345`));
    expect(await removeLeftoverTemps(root, registerOf(root))).toEqual([]);
    expect(existsSync(unaccounted)).toBe(true);

    // A writer that is gone: walked, its files removed, its mark let go; the live writer's stays.
    put(join(registerOf(root), `${dead}-0123456789ab`));
    const left = put(join(root, '.meta', 'blog', 'search', `.tmp-${dead}-0123456789ab-3`));
    expect((await removeLeftoverTemps(root, registerOf(root))).sort()).toEqual([
      `.meta/blog/search/.tmp-${dead}-0123456789ab-3`,
      `blog/.tmp-${dead}-0123456789ab-2`,
    ]);
    expect(existsSync(left)).toBe(false);
    expect(marks(root)).toEqual([`${process.ppid}-abcdef012345`]);
  });

  it('a store whose first writer found its folder empty (an import into a new data dir) is not walked at the next start', async () => {
    const dead = deadPid();
    for (const existing of [false, true]) {
      const root = existing ? freshRoot() : join(freshRoot(), 'public');
      const store = new FsSiteStore({ root });
      await store.put('blog/index.html', '<p>imported</p>', page);
      await store.close();
      // A temp file no mark accounts for: only a walk would find it.
      const unaccounted = put(join(root, 'blog', `.tmp-${dead}-0123456789ab-1`));
      expect(await removeLeftoverTemps(root, registerOf(root))).toEqual([]);
      expect(existsSync(unaccounted)).toBe(true);
    }
  });

  it('a folder that held files before the first mark (an older Folio wrote them) is walked once', async () => {
    const root = freshRoot();
    const dead = deadPid();
    const older = put(join(root, 'blog', 'post', `.tmp-${dead}-0123456789ab-1`));
    const store = new FsSiteStore({ root });
    await store.put('blog/index.html', '<p>new</p>', page);
    await store.close();
    expect(await removeLeftoverTemps(root, registerOf(root))).toEqual([`blog/post/.tmp-${dead}-0123456789ab-1`]);
    expect(existsSync(older)).toBe(false);
    expect((await store.getBody('blog/index.html'))?.toString()).toBe('<p>new</p>');
  });

  it("counts an earlier process with this one's pid as gone (a restarted container), but never this store's own mark", async () => {
    const root = freshRoot();
    const store = new FsSiteStore({ root });
    expect(await store.removeLeftoverTemps()).toEqual([]);
    await store.put('blog/index.html', '<p>a page</p>', page);
    const own = marks(root);
    expect(own).toHaveLength(1);
    expect(await store.removeLeftoverTemps()).toEqual([]);

    put(join(registerOf(root), `${process.pid}-ffffffffffff`));
    const earlier = put(join(root, 'blog', `.tmp-${process.pid}-ffffffffffff-0`));
    expect(await store.removeLeftoverTemps()).toEqual([`blog/.tmp-${process.pid}-ffffffffffff-0`]);
    expect(existsSync(earlier)).toBe(false);
    expect(marks(root)).toEqual(own);
    expect((await store.getBody('blog/index.html'))?.toString()).toBe('<p>a page</p>');
    await store.close();
  });
});
