/**
 * The repositories already on the query seam, on a real PostgreSQL with the baseline schema
 * (src/db/migrations/postgres/024_baseline.sql): the same SQL text the SQLite suite runs.
 */
import { describe, expect, it } from 'vitest';
import { AnalyticsRepo } from '../../src/db/analyticsRepo.js';
import { IdempotencyRepo } from '../../src/db/idempotencyRepo.js';
import { ListingSnapshotsRepo } from '../../src/db/listingSnapshotsRepo.js';
import { LoginLinksRepo } from '../../src/db/loginLinksRepo.js';
import { ObjectHashesRepo } from '../../src/db/objectHashesRepo.js';
import { PreviewLinksRepo } from '../../src/db/previewLinksRepo.js';
import { SessionsRepo } from '../../src/db/sessionsRepo.js';
import { migratePostgres } from '../../src/db/sql/postgresMigrations.js';
import { WebhooksRepo } from '../../src/db/webhooksRepo.js';
import { LATER, T0, usePostgres } from '../support/postgresRepos.js';

const { seeded, server } = usePostgres();

describe('the PostgreSQL schema', () => {
  it('is applied once, also when several nodes migrate at the same moment', async () => {
    const url = await server().createDatabase();
    const runs = await Promise.all([migratePostgres(url), migratePostgres(url), migratePostgres(url)]);
    // One node applied everything, from the baseline on; the others found it applied.
    expect(runs.filter((names) => names.length > 0)).toHaveLength(1);
    expect(runs.flat()[0]).toBe('024_baseline.sql');
    expect(await migratePostgres(url)).toEqual([]);
  });

  it("logs changes of published posts for the listing caches, as SQLite's triggers do", async () => {
    const sql = await seeded();
    await sql.run("UPDATE posts SET title = 'Renamed' WHERE id = 'p1'");
    await sql.run(
      `INSERT INTO posts (id, blog_id, title, slug, content_md, content_html, meta_description, status, created_at, updated_at)
       VALUES ('d1', 'b1', 'Draft', 'draft', 'x', 'x', 'x', 'draft', ?, ?)`,
      [T0, T0],
    );
    await sql.run("DELETE FROM posts WHERE id = 'p1'");
    expect(await sql.all('SELECT seq, post_id FROM post_changes ORDER BY seq')).toEqual([
      { seq: 1, post_id: 'p1' },
      { seq: 2, post_id: 'p1' },
      { seq: 3, post_id: 'p1' },
    ]);
  });

  it('commits logged changes in the order of their seq, whatever the blogs (a listing replays from a position)', async () => {
    const sql = await seeded();
    await sql.run("INSERT INTO blogs (id, account_id, slug, name, created_at, updated_at) VALUES ('b2', 'a1', 'two', 'Two', ?, ?)", [T0, T0]);
    await sql.run(
      `INSERT INTO posts (id, blog_id, title, slug, content_md, content_html, meta_description, status, published_at, created_at, updated_at)
       VALUES ('q1', 'b2', 'Other', 'other', 'x', 'x', 'x', 'published', ?, ?, ?)`,
      [T0, T0, T0],
    );
    const before = (await sql.get<{ n: number }>('SELECT MAX(seq) AS n FROM post_changes'))!.n;
    // The first transaction draws its seq and stays open; the second, on another blog, must wait for it.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let logged!: () => void;
    const drawn = new Promise<void>((resolve) => {
      logged = resolve;
    });
    const order: string[] = [];
    const first = sql.transaction(async (tx) => {
      await tx.run("UPDATE posts SET title = 'First edit' WHERE id = 'p1'");
      logged();
      await gate;
      tx.afterCommit(() => order.push('p1'));
    });
    await drawn;
    const second = sql.transaction(async (tx) => {
      await tx.run("UPDATE posts SET title = 'Second edit' WHERE id = 'q1'");
      tx.afterCommit(() => order.push('q1'));
    });
    // Waits until the second is blocked on the log's advisory lock, as seen by the server itself.
    for (;;) {
      const waiting = await sql.get<{ n: number }>("SELECT COUNT(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND wait_event = 'advisory'");
      if (waiting!.n > 0) break;
    }
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['p1', 'q1']);
    expect(await sql.all('SELECT seq, post_id FROM post_changes WHERE seq > ? ORDER BY seq', [before])).toEqual([
      { seq: before + 1, post_id: 'p1' },
      { seq: before + 2, post_id: 'q1' },
    ]);
  });
});

describe('repositories on PostgreSQL', () => {
  it('login links: used once, then used; unknown; expired; pruned', async () => {
    const links = new LoginLinksRepo(await seeded());
    await links.insert({ tokenHash: 'h1', accountId: 'a1', createdAt: T0, expiresAt: LATER });
    await links.insert({ tokenHash: 'h2', accountId: 'a1', createdAt: T0, expiresAt: T0 });
    expect(await links.consume('h1', T0)).toEqual({ outcome: 'ok', accountId: 'a1' });
    expect(await links.consume('h1', T0)).toEqual({ outcome: 'used' });
    expect(await links.consume('h2', T0)).toEqual({ outcome: 'expired' });
    expect(await links.consume('nope', T0)).toEqual({ outcome: 'unknown' });
    expect(await links.deleteExpired(LATER)).toBe(2);
  });

  it('sessions: found with their account, listed, slid, and ended', async () => {
    const sessions = new SessionsRepo(await seeded());
    const session = { id: 's1', accountId: 'a1', csrfToken: 'c', createdAt: T0, lastUsedAt: T0, expiresAt: LATER, userAgent: 'UA' };
    await sessions.insert({ ...session, secretHash: 'x1' });
    await sessions.insert({ ...session, id: 's2', secretHash: 'x2' });
    expect(await sessions.findByHash('x1')).toEqual({
      session,
      account: { id: 'a1', email: 'a@example.com', plan: 'creator', createdAt: T0, updatedAt: T0 },
    });
    await sessions.touch('s1', LATER, '2026-04-24T10:00:00.000Z');
    expect((await sessions.listLive('a1', T0)).map((s) => s.id)).toEqual(['s1', 's2']);
    expect(await sessions.deleteOthers('a1', 's1')).toBe(1);
    expect(await sessions.delete('a1', 's1')).toBe(true);
    expect(await sessions.findByHash('x1')).toBeNull();
  });

  it('preview links: only for a post that exists, found while live, revoked together', async () => {
    const links = new PreviewLinksRepo(await seeded());
    expect(await links.insert({ tokenHash: 't1', postId: 'p1', createdAt: T0, expiresAt: LATER })).toBe(true);
    expect(await links.insert({ tokenHash: 't2', postId: 'gone', createdAt: T0, expiresAt: LATER })).toBe(false);
    expect(await links.postOf('t1', T0)).toBe('p1');
    expect(await links.postOf('t1', LATER)).toBeNull();
    expect(await links.revokeAll('p1')).toBe(1);
  });

  it('idempotency keys: claimed, completed, released, and purged a hundred at a time', async () => {
    const sql = await seeded();
    const repo = new IdempotencyRepo(sql);
    const owner = { accountId: 'a1', keyId: 'k1' };
    const claim = { fingerprint: 'fp', lockedUntil: T0, createdAt: T0, expiresAt: LATER };
    await sql.transaction(async (tx) => repo.in(tx).claim(owner, { ...claim, key: 'one' }));
    await repo.complete(owner, 'one', 201, '{"id":"x"}', null);
    expect(await repo.find(owner, 'one')).toMatchObject({ state: 'done', status: 201, responseBody: '{"id":"x"}' });
    await repo.claim(owner, { ...claim, key: 'two' });
    await repo.release(owner, 'two');
    expect(await repo.find(owner, 'two')).toBeNull();
    for (let i = 0; i < 120; i++) await repo.claim(owner, { ...claim, key: `old-${i}`, expiresAt: T0 });
    await repo.purgeExpired(T0);
    expect(await sql.get('SELECT COUNT(*) AS n FROM idempotency_keys')).toEqual({ n: 21 });
  });

  it('webhooks: due deliveries leave out busy webhooks and accounts; attempts are recorded and replaced', async () => {
    const sql = await seeded();
    const repo = new WebhooksRepo(sql);
    await repo.insert({ id: 'w1', blogId: 'b1', url: 'https://example.com/h', events: ['post.published'], secret: 's', createdAt: T0 });
    await repo.insert({ id: 'w2', blogId: 'b1', url: 'https://example.com/i', events: ['post.published'], secret: 's', createdAt: LATER });
    for (const [id, webhook] of [
      ['d1', 'w1'],
      ['d2', 'w2'],
    ]) {
      await sql.run(
        "INSERT INTO webhook_deliveries (id, webhook_id, event_type, payload, status, attempts, next_attempt_at, created_at) VALUES (?, ?, 'post.published', '{}', 'pending', 0, ?, ?)",
        [id!, webhook!, T0, T0],
      );
    }
    expect((await repo.listByBlog('b1')).map((w) => w.id)).toEqual(['w1', 'w2']);
    const due = await repo.due(LATER, { skipWebhooks: [], skipAccounts: [] }, 10);
    expect(due.map((d) => [d.id, d.accountId])).toEqual([
      ['d1', 'a1'],
      ['d2', 'a1'],
    ]);
    expect((await repo.due(LATER, { skipWebhooks: ['w1'], skipAccounts: [] }, 10)).map((d) => d.id)).toEqual(['d2']);
    expect(await repo.due(LATER, { skipWebhooks: [], skipAccounts: ['a1'] }, 10)).toEqual([]);
    const attempt = { at: LATER, responseCode: 500, durationMs: 12, error: 'answered 500' };
    await sql.transaction((tx) => repo.in(tx).recordAttempt(due[0]!, attempt, { status: 'pending', nextAttemptAt: LATER }));
    await repo.recordAttempt(due[0]!, { ...attempt, responseCode: 200, error: null }, { status: 'delivered', nextAttemptAt: LATER });
    expect(await repo.attempts('w1', 10)).toEqual([
      { deliveryId: 'd1', eventType: 'post.published', deliveryStatus: 'delivered', attempt: 1, at: LATER, responseCode: 200, durationMs: 12, error: null },
    ]);
    expect(await repo.findDelivery('w1', 'd1')).toEqual({ id: 'd1', status: 'delivered' });
    await repo.redeliver('d1', LATER);
    expect(await repo.findDelivery('w1', 'd1')).toEqual({ id: 'd1', status: 'pending' });
  });

  it("analytics: one salt per day, a beacon's target, counts added and read back as numbers", async () => {
    const sql = await seeded();
    const repo = new AnalyticsRepo(sql);
    const salt = await repo.saltFor('2026-03-24', Buffer.alloc(32, 1));
    expect(await repo.saltFor('2026-03-24', Buffer.alloc(32, 2))).toEqual(salt);
    expect(salt).toEqual(Buffer.alloc(32, 1));
    expect(await repo.target('one', 'first')).toEqual({ blogId: 'b1', postId: 'p1' });
    expect(await repo.target('one', null)).toEqual({ blogId: 'b1', postId: null });
    expect(await repo.target('one', 'missing')).toBeNull();
    const batch = {
      days: [
        { day: '2026-03-24', blogId: 'b1', postId: null, views: 3, visitors: 2 },
        { day: '2026-03-24', blogId: 'b1', postId: 'p1', views: 2, visitors: 1 },
        { day: '2026-03-24', blogId: 'b1', postId: 'deleted-post', views: 9, visitors: 9 },
      ],
      referrers: [{ day: '2026-03-24', blogId: 'b1', postId: 'p1', host: 'news.example', views: 2 }],
    };
    await sql.transaction((tx) => repo.in(tx).add(batch));
    await repo.add(batch);
    expect(await repo.totals({ blogId: 'b1' }, '2026-03-01')).toEqual({ views: 6, visitors: 4 });
    expect(await repo.daily({ postId: 'p1' }, '2026-03-01')).toEqual([{ day: '2026-03-24', views: 4 }]);
    expect(await repo.referrers({ postId: 'p1' }, '2026-03-01', 5)).toEqual([{ host: 'news.example', views: 4 }]);
    expect(await repo.topPosts('b1', '2026-03-01', 5)).toEqual([{ slug: 'first', title: 'First', views: 4 }]);
    expect(await repo.pruneBefore('2026-03-25')).toBe(3);
  });

  it('object hashes: pages in key order, prefixes as ranges, batches in one transaction', async () => {
    const repo = new ObjectHashesRepo(await seeded());
    await repo.setMany('b1', [
      ['one/tags/c++/index.html', 'h1'],
      ['one/first/index.html', 'h2'],
      ['one/first/card.png', 'h3'],
      ['one/한국어/index.html', 'h4'],
    ]);
    await repo.set('b1', 'one/index.html', 'h5');
    expect(await repo.get('b1', 'one/first/card.png')).toBe('h3');
    expect(await repo.keysUnder('b1', 'one/first/')).toEqual(['one/first/card.png', 'one/first/index.html']);
    const first = await repo.page('b1', '', 3);
    const rest = await repo.page('b1', first[2]![0], 3);
    expect([...first, ...rest].map(([key]) => key)).toEqual([
      'one/first/card.png',
      'one/first/index.html',
      'one/index.html',
      'one/tags/c++/index.html',
      'one/한국어/index.html',
    ]);
    await repo.deleteMany('b1', ['one/index.html', 'one/first/card.png']);
    expect((await repo.all('b1')).size).toBe(3);
    await repo.clear('b1');
    expect((await repo.all('b1')).size).toBe(0);
  });

  it('listing snapshots: bytes kept as they were, only ever forwards, never for a blog that is gone', async () => {
    const repo = new ListingSnapshotsRepo(await seeded());
    await repo.put('b1', 5, Buffer.from([0, 1, 2, 255]), T0);
    await repo.put('b1', 4, Buffer.from('older'), T0);
    expect(await repo.get('b1')).toEqual({ seq: 5, data: Buffer.from([0, 1, 2, 255]) });
    await repo.put('gone', 1, Buffer.from('x'), T0);
    expect(await repo.get('gone')).toBeNull();
    await repo.delete('b1');
    expect(await repo.get('b1')).toBeNull();
  });
});
