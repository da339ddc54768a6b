/**
 * A full render that lets a post job run between two of its chunks (SiteWriter.leave): the keys
 * the job wrote are the job's, so the render neither deletes them as stale nor records its own,
 * older hash for one it had written before the job (its hashes are recorded only at the end).
 * A real SQLite file and a real folder store.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/db/database.js';
import { ObjectHashesRepo } from '../../../src/db/objectHashesRepo.js';
import { SqliteClient } from '../../../src/db/sql/sqliteClient.js';
import { FsSiteStore } from '../../../src/storage/fsSiteStore.js';
import type { SiteObject } from '../../../src/storage/siteStore.js';
import { objectHash, SiteWriter, writeSite } from '../../../src/publish/stages/writeSite.js';
import { testTempDir } from '../../support/tempDir.js';

const page = (key: string, text: string): SiteObject => ({ key, body: text, contentType: 'text/html; charset=utf-8', cacheControl: 'public, max-age=60' });

/** A real SQLite file and folder store in a temp dir of their own. */
async function withStore(work: (store: FsSiteStore, hashes: ObjectHashesRepo) => Promise<void>): Promise<void> {
  const dir = testTempDir('folio-leave-');
  const db = openDatabase(join(dir, 'folio.db'));
  const sql = new SqliteClient(db);
  try {
    await work(new FsSiteStore({ root: join(dir, 'public') }), new ObjectHashesRepo(sql));
  } finally {
    await sql.close();
    db.close();
  }
}

describe('SiteWriter.leave', () => {
  it('keeps the hashes and keys another writer recorded between two chunks', async () => {
    await withStore(async (store, hashes) => {
      await writeSite(store, hashes, 'b', [page('b/old/index.html', 'a page the render no longer makes')]);

      const render = new SiteWriter(store, hashes, 'b', { bulk: true, total: 3 });
      await render.write([page('b/index.html', 'home, as the render planned it'), page('b/one/index.html', 'one')]);
      // A post job between two chunks: the home page again, and a new post's page.
      const home = page('b/index.html', 'home, with the new post');
      const fresh = page('b/new/index.html', 'the new post');
      await writeSite(store, hashes, 'b', [home, fresh]);
      render.leave([home.key, fresh.key]);
      await render.write([page('b/two/index.html', 'two')]);
      const stale = (await store.list('b/')).filter((key) => !render.keys.has(key));
      const result = await render.finish(stale);

      expect(stale).toEqual(['b/old/index.html']);
      expect(result.deleted).toBe(1);
      expect((await store.get(fresh.key))?.body.toString()).toBe('the new post');
      expect((await store.get(home.key))?.body.toString()).toBe('home, with the new post');
      expect(await hashes.get('b', home.key)).toBe(objectHash(home));
      expect(await hashes.get('b', fresh.key)).toBe(objectHash(fresh));
      expect(await hashes.get('b', 'b/two/index.html')).toBe(objectHash(page('b/two/index.html', 'two')));
    });
  });

  it('lets work in between the transactions that record a big write, leaving out the keys it wrote', async () => {
    await withStore(async (store, hashes) => {
      const pages = Array.from({ length: 2500 }, (_, i) => page(`b/p${i}/index.html`, `page ${i}`));
      const render = new SiteWriter(store, hashes, 'b', { bulk: true, total: pages.length });
      await render.write(pages);
      // The last page, written again between two of the render's transactions.
      const theirs = page('b/p2499/index.html', 'page 2499, newer');
      let turns = 0;
      await render.finish([], async () => {
        turns += 1;
        if (turns === 1) {
          await writeSite(store, hashes, 'b', [theirs]);
          render.leave([theirs.key]);
        }
      });
      // 2,500 hashes are three transactions of 1,000: work got the two turns between them.
      expect(turns).toBe(2);
      expect(await hashes.get('b', theirs.key)).toBe(objectHash(theirs));
      expect(await hashes.get('b', 'b/p2498/index.html')).toBe(objectHash(pages[2498]!));
      expect((await hashes.all('b')).size).toBe(2500);
    });
  });
});
