/**
 * A bulk write reads the blog's recorded object hashes a page at a time (a 50,000-post blog has
 * 60,000), against a real SQLite file: every hash of the blog, none of another blog's.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/db/database.js';
import { ObjectHashesRepo } from '../../../src/db/objectHashesRepo.js';
import { SqliteClient } from '../../../src/db/sql/sqliteClient.js';
import { recordedHashes } from '../../../src/publish/stages/writeSite.js';
import { testTempDir } from '../../support/tempDir.js';
import { withLoopTurns } from '../../support/loopTurns.js';

describe('recordedHashes', () => {
  it('reads every hash of the blog over several pages, giving the event loop turns between them', async () => {
    const db = openDatabase(join(testTempDir('folio-hashes-'), 'folio.db'));
    const sql = new SqliteClient(db);
    try {
      const hashes = new ObjectHashesRepo(sql);
      // Keys that sort in surprising ways: a page boundary must neither skip nor repeat any.
      const entries: [string, string][] = [];
      for (let i = 0; i < 12_345; i++) entries.push([`a/${i % 7 === 0 ? 'tags/c++' : 'post'}-${i}/index.html`, `h${i}`]);
      entries.push(['a/한국어/index.html', 'hk'], ['a/', 'h-empty'], ['a/~last', 'h-tilde']);
      await hashes.setMany('a', entries);
      await hashes.setMany('ab', [['ab/index.html', 'other']]);
      await hashes.setMany('0', [['0/index.html', 'other']]);

      const { result: known, turns } = await withLoopTurns(() => recordedHashes(hashes, 'a'));

      expect(known).toEqual(await hashes.all('a'));
      expect(known.size).toBe(entries.length);
      expect(known.get('a/한국어/index.html')).toBe('hk');
      // 12,348 rows are three pages of 5,000: a turn before each page after the first.
      expect(turns).toBeGreaterThanOrEqual(2);
      expect(await recordedHashes(hashes, 'none')).toEqual(new Map());
    } finally {
      await sql.close();
      db.close();
    }
  });
});
