/**
 * Rate limits counted across nodes (issue #32): two limiters on two clients of one database are
 * two nodes. Syncs are driven by hand and time by a fake clock; nothing here waits on a timer.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { migratePostgres } from '../../src/db/sql/postgresMigrations.js';
import { PostgresClient } from '../../src/db/sql/postgresClient.js';
import { RateWindowsRepo } from '../../src/db/rateWindowsRepo.js';
import { ACCOUNT_WINDOW_MS, RateLimiter } from '../../src/services/rateLimiter.js';
import { AddressRateLimiter } from '../../src/services/addressRateLimiter.js';
import { RateWindowSync } from '../../src/services/rateWindowSync.js';
import { FakeClock } from '../support/fakeClock.js';
import { captureLog } from '../support/capturedLog.js';
import { usePostgres } from '../support/postgresRepos.js';

const { server } = usePostgres();
const SIGN_IN_WINDOW_MS = 15 * 60_000;

async function database(): Promise<string> {
  const url = await server().createDatabase();
  expect(await migratePostgres(url)).toContain('026_rate_windows.sql');
  return url;
}

/** One node: its own client, syncer and limiters. */
function node(url: string, clock: FakeClock) {
  const sql = new PostgresClient(url, { maxConnections: 2 });
  onTestFinished(() => sql.close());
  const log = captureLog('info');
  const sync = new RateWindowSync({ repo: new RateWindowsRepo(sql), clock, logger: log.logger });
  return {
    sql,
    sync,
    log,
    accounts: new RateLimiter(clock, sync.share('account', ACCOUNT_WINDOW_MS)),
    emails: new AddressRateLimiter(clock, 10, SIGN_IN_WINDOW_MS, sync.share('sign-in-email', SIGN_IN_WINDOW_MS)),
  };
}

function hits(limiter: RateLimiter, times: number, account = 'a1'): boolean[] {
  return Array.from({ length: times }, () => limiter.hit(account, 'free').allowed);
}

describe('rate limits across nodes on PostgreSQL', () => {
  it('enforce one account budget across two nodes once they have synced', async () => {
    const url = await database();
    const clock = new FakeClock('2026-03-24T10:20:00.000Z');
    const a = node(url, clock);
    const b = node(url, clock);

    expect(hits(a.accounts, 30)).not.toContain(false);
    expect(hits(b.accounts, 20)).not.toContain(false);
    expect(await a.sync.sync()).toBe(true);
    expect(await b.sync.sync()).toBe(true);
    // Each node sees the other's counts as of the last sync, plus its own since.
    expect(b.accounts.hit('a1', 'free', 0).remaining).toBe(10);
    expect(a.accounts.hit('a1', 'free', 0).remaining).toBe(30);
    expect(await a.sync.sync()).toBe(true);
    expect(a.accounts.hit('a1', 'free', 0).remaining).toBe(10);

    expect(hits(a.accounts, 6)).not.toContain(false);
    // Not synced yet: B admits on what it knew (the documented overshoot of one interval).
    expect(b.accounts.hit('a1', 'free', 0).remaining).toBe(10);
    await a.sync.sync();
    await b.sync.sync();
    expect(hits(b.accounts, 5)).toEqual([true, true, true, true, false]);
    await b.sync.sync();
    await a.sync.sync();
    expect(a.accounts.hit('a1', 'free')).toMatchObject({ allowed: false, remaining: 0 });
    expect(b.accounts.hit('a1', 'free')).toMatchObject({ allowed: false, remaining: 0 });
    // Another account's budget is its own.
    expect(b.accounts.hit('a2', 'free')).toMatchObject({ allowed: true, remaining: 59 });

    // The next hour starts afresh, and the ended window's rows are deleted at the next sync.
    clock.advance(ACCOUNT_WINDOW_MS);
    expect(a.accounts.hit('a1', 'free')).toMatchObject({ allowed: true, remaining: 59 });
    await a.sync.sync();
    const rows = await a.sql.all<{ key: string; window_start: number; count: number }>('SELECT key, window_start, count FROM rate_windows');
    expect(rows).toEqual([{ key: expect.any(String), window_start: Date.parse('2026-03-24T11:00:00.000Z'), count: 1 }]);
    expect(rows[0]?.key).not.toContain('a1');
  });

  it('count sign-in attempts per email across nodes, storing only a keyed hash of the email', async () => {
    const url = await database();
    const clock = new FakeClock('2026-03-24T10:05:00.000Z');
    const a = node(url, clock);
    const b = node(url, clock);
    for (let i = 0; i < 6; i++) expect(a.emails.hit('who@example.com').allowed).toBe(true);
    for (let i = 0; i < 4; i++) expect(b.emails.hit('who@example.com').allowed).toBe(true);
    await a.sync.sync();
    await b.sync.sync();
    await a.sync.sync();
    expect(a.emails.hit('who@example.com')).toMatchObject({ allowed: false, remaining: 0 });
    expect(b.emails.hit('who@example.com')).toMatchObject({ allowed: false, remaining: 0 });
    // Both nodes hashed the email the same way (one row), and the email is not in the table.
    const rows = await a.sql.all<{ scope: string; key: string; count: number }>('SELECT scope, key, count FROM rate_windows');
    expect(rows).toEqual([{ scope: 'sign-in-email', key: expect.any(String), count: 10 }]);
    expect(rows[0]?.key).not.toMatch(/who|example/);
  });

  it('send more keys than one statement takes in batches, each key counted once', async () => {
    const url = await database();
    const clock = new FakeClock();
    const a = node(url, clock);
    const b = node(url, clock);
    const accounts = Array.from({ length: 450 }, (_, i) => `acc-${i}`);
    for (const account of accounts) {
      a.accounts.hit(account, 'free');
      b.accounts.hit(account, 'free');
    }
    await a.sync.sync();
    await b.sync.sync();
    expect(accounts.map((account) => b.accounts.hit(account, 'free', 0).remaining)).toEqual(accounts.map(() => 58));
    expect(await a.sql.get<{ n: number; total: number }>('SELECT count(*) AS n, sum(count) AS total FROM rate_windows')).toEqual({ n: 450, total: 900 });
  });

  it('keep answering on a node that cannot reach the database, logging it once', async () => {
    const clock = new FakeClock();
    const lost = node('postgres://folio@127.0.0.1:1/nowhere', clock);
    expect(hits(lost.accounts, 30)).not.toContain(false);
    expect(await lost.sync.sync()).toBe(false);
    expect(hits(lost.accounts, 31)).toEqual([...Array.from({ length: 30 }, () => true), false]);
    expect(await lost.sync.sync()).toBe(false);
    expect(lost.log.lines.filter((line) => line.includes('cannot sync with the database'))).toHaveLength(1);
  });

  it('send what a node counted while the database was away once it is back', async () => {
    const url = await database();
    const clock = new FakeClock();
    const a = node(url, clock);
    const b = node(url, clock);
    await a.sync.sync();
    await server().pause();
    try {
      expect(hits(a.accounts, 25)).not.toContain(false);
      expect(await a.sync.sync()).toBe(false);
    } finally {
      await server().start();
    }
    // The pool may hand out one connection the restart cut: that round fails and keeps the counts.
    let synced = false;
    for (let round = 0; round < 3 && !synced; round++) synced = await a.sync.sync();
    expect(synced).toBe(true);
    expect(a.log.lines.filter((line) => line.includes('cannot sync with the database'))).toHaveLength(1);
    expect(a.log.lines.filter((line) => line.includes('the database answers again'))).toHaveLength(1);
    b.accounts.hit('a1', 'free');
    await b.sync.sync();
    expect(b.accounts.hit('a1', 'free', 0).remaining).toBe(34);
  });
});
