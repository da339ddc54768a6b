/**
 * The discovery index on SQLite (src/db/discoveryRepo.ts, FTS5) on a real file: the behaviour
 * every implementation has is in test/support/discoveryIndexContract.ts, which PostgreSQL's
 * (test/postgres/discoveryRepo.test.ts) runs too.
 */
import { join } from 'node:path';
import { describe, onTestFinished } from 'vitest';
import { openDatabase } from '../../../src/db/database.js';
import { DiscoveryRepo } from '../../../src/db/discoveryRepo.js';
import { SqliteClient } from '../../../src/db/sql/sqliteClient.js';
import { discoveryIndexContract } from '../../support/discoveryIndexContract.js';
import { testTempDir } from '../../support/tempDir.js';

describe('DiscoveryRepo (SQLite)', () => {
  discoveryIndexContract(async () => {
    const db = openDatabase(join(testTempDir('folio-discovery-'), 'folio.db'));
    const sql = new SqliteClient(db);
    onTestFinished(async () => {
      await sql.close();
      db.close();
    });
    return {
      sql,
      index: new DiscoveryRepo(sql),
      entries: async () => (await sql.all<{ post_id: string }>('SELECT post_id FROM discovery_posts ORDER BY post_id')).map((row) => row.post_id),
      entriesWithTerm: async (term) =>
        (await sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM discovery_terms WHERE discovery_terms MATCH ?', [`"${term}"`]))?.n ?? 0,
    };
  });
});
