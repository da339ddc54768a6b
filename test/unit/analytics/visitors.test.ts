import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/db/database.js';
import { AnalyticsRepo } from '../../../src/db/analyticsRepo.js';
import { SqliteClient } from '../../../src/db/sql/sqliteClient.js';
import { DailySalts, dayBefore, visitorHash } from '../../../src/analytics/visitorHash.js';
import { ViewCounter } from '../../../src/analytics/viewCounter.js';
import { FakeClock } from '../../support/fakeClock.js';

const dirs: string[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The real repository on a real, migrated SQLite file. */
function repoOnDisk() {
  const dir = mkdtempSync(join(tmpdir(), 'folio-analytics-'));
  dirs.push(dir);
  const db = openDatabase(join(dir, 'folio.db'));
  const salts = () =>
    db
      .prepare<[], { day: string }>('SELECT day FROM analytics_salts ORDER BY day')
      .all()
      .map((r) => r.day);
  const sql = new SqliteClient(db);
  closers.push(async () => {
    await sql.close();
    db.close();
  });
  return { db, repo: new AnalyticsRepo(sql), salts };
}

describe('daily salts', () => {
  it('makes one salt per UTC day, shared by every process of the data dir', async () => {
    const { repo } = repoOnDisk();
    const clock = new FakeClock('2026-03-24T00:00:01.000Z');
    const a = new DailySalts(repo, clock);
    const b = new DailySalts(repo, clock);
    expect((await a.today()).salt.equals((await b.today()).salt)).toBe(true);
    const first = (await a.today()).salt;
    clock.set('2026-03-24T23:59:59.999Z');
    expect((await a.today()).salt.equals(first)).toBe(true);
    clock.set('2026-03-25T00:00:00.000Z');
    expect((await a.today()).day).toBe('2026-03-25');
    expect((await a.today()).salt.equals(first)).toBe(false);
  });

  it('deletes a salt once it is 48 hours old, so days cannot be linked', async () => {
    const { repo, salts } = repoOnDisk();
    const clock = new FakeClock('2026-03-24T10:00:00.000Z');
    const daily = new DailySalts(repo, clock);
    await daily.today();
    clock.advance(86_400_000);
    await daily.today();
    expect(salts()).toEqual(['2026-03-24', '2026-03-25']);
    clock.advance(86_400_000);
    await daily.today();
    expect(salts()).toEqual(['2026-03-25', '2026-03-26']);
  });

  it('hashes differently per salt, blog, address and user agent, and never shows the address', () => {
    const salt = Buffer.alloc(32, 1);
    const base = visitorHash(salt, 'blog', '203.0.113.9', 'UA');
    expect(visitorHash(salt, 'blog', '203.0.113.9', 'UA')).toBe(base);
    expect(visitorHash(Buffer.alloc(32, 2), 'blog', '203.0.113.9', 'UA')).not.toBe(base);
    expect(visitorHash(salt, 'other', '203.0.113.9', 'UA')).not.toBe(base);
    expect(visitorHash(salt, 'blog', '203.0.113.10', 'UA')).not.toBe(base);
    expect(visitorHash(salt, 'blog', '203.0.113.9', 'UA2')).not.toBe(base);
    expect(base).not.toContain('203');
  });

  it('counts days back in UTC', () => {
    expect(dayBefore('2026-03-01', 1)).toBe('2026-02-28');
    expect(dayBefore('2026-01-01', 399)).toBe('2024-11-28');
  });
});

describe('the in-memory counter', () => {
  it('counts views per row, a visitor once per row and day, and the blog row for every load', () => {
    const counter = new ViewCounter();
    const post = { blogId: 'b', postId: 'p' };
    counter.record('2026-03-24', post, 'v1', 'news.example');
    counter.record('2026-03-24', post, 'v1', null);
    counter.record('2026-03-24', { blogId: 'b', postId: null }, 'v1', null);
    counter.record('2026-03-24', post, 'v2', 'news.example');
    const batch = counter.drain();
    const blog = batch.days.find((d) => d.postId === null)!;
    const postRow = batch.days.find((d) => d.postId === 'p')!;
    expect(blog).toMatchObject({ views: 4, visitors: 2 });
    expect(postRow).toMatchObject({ views: 3, visitors: 2 });
    expect(batch.referrers.find((r) => r.postId === 'p')).toMatchObject({ host: 'news.example', views: 2 });
    expect(counter.drain()).toEqual({ days: [], referrers: [] });
    // The same day after a flush: still the same visitor.
    counter.record('2026-03-24', post, 'v1', null);
    expect(counter.drain().days.find((d) => d.postId === 'p')).toMatchObject({ views: 1, visitors: 0 });
    // A new day forgets yesterday's visitors.
    counter.record('2026-03-25', post, 'v1', null);
    expect(counter.drain().days.find((d) => d.postId === 'p')).toMatchObject({ views: 1, visitors: 1 });
  });

  it('stays within its bounds under a flood of hashes and sources', () => {
    const counter = new ViewCounter({ rows: 10, referrers: 5, visitors: 100 });
    for (let i = 0; i < 1_000; i++) counter.record('2026-03-24', { blogId: `b${i % 20}`, postId: null }, `v${i}`, `s${i}.example`);
    const sizes = counter.sizes();
    expect(sizes.rows).toBeLessThanOrEqual(10);
    expect(sizes.referrers).toBeLessThanOrEqual(5);
    expect(sizes.visitors).toBeLessThanOrEqual(100);
  });

  it('puts a batch back when its write failed', () => {
    const counter = new ViewCounter();
    counter.record('2026-03-24', { blogId: 'b', postId: null }, 'v1', 'x.example');
    const batch = counter.drain();
    counter.record('2026-03-24', { blogId: 'b', postId: null }, 'v2', null);
    counter.restore(batch);
    const again = counter.drain();
    expect(again.days[0]).toMatchObject({ views: 2, visitors: 2 });
    expect(again.referrers[0]).toMatchObject({ host: 'x.example', views: 1 });
  });
});
