import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrate, openDatabase } from '../../../src/db/database.js';
import { POST_JOBS_SINCE_SQL } from '../../../src/db/jobsRepo.js';
import { testTempDir } from '../../support/tempDir.js';

describe('the jobs a full render catches up on', () => {
  it('are read by a range of the id, not through the index of every job the blog ever had', () => {
    const db = openDatabase(join(testTempDir('folio-jobs-plan-'), 'folio.db'));
    try {
      migrate(db);
      const plan = db.prepare(`EXPLAIN QUERY PLAN ${POST_JOBS_SINCE_SQL}`).all(0, 'b1') as { detail: string }[];
      expect(plan.map((row) => row.detail)).toEqual(['SEARCH publish_jobs USING INTEGER PRIMARY KEY (rowid>?)']);
    } finally {
      db.close();
    }
  });
});
