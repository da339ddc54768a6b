/**
 * The repositories of background work on a real PostgreSQL: publish jobs, the render stamps of
 * the CLI, settings, and the webhook queue a change fills.
 */
import { describe, expect, it } from 'vitest';
import { JobsRepo } from '../../src/db/jobsRepo.js';
import { RenderStampsRepo } from '../../src/db/renderStampsRepo.js';
import { SettingsRepo } from '../../src/db/settingsRepo.js';
import { WebhookQueueRepo } from '../../src/db/webhookQueueRepo.js';
import { LATER, T0, usePostgres } from '../support/postgresRepos.js';

const { seeded } = usePostgres();

describe('publish jobs on PostgreSQL', () => {
  it('are recorded in id order, found due, done, failed, retried, and counted', async () => {
    const sql = await seeded();
    const jobs = new JobsRepo(sql);
    expect(await jobs.latestId()).toBe(0);
    const job = (kind: 'post' | 'site' | 'post_removed', blogId = 'b1', now = T0) => ({ blogId, blogSlug: 'one', kind, payload: { postId: 'p1' }, now });
    expect(await jobs.insert(job('post'))).toBe(1);
    expect(await sql.transaction((tx) => jobs.in(tx).insert(job('site')))).toBe(2);
    expect(await jobs.insert(job('post_removed', 'b2'))).toBe(3);
    expect(await jobs.insert(job('post', 'b1', LATER))).toBe(4);
    expect(await jobs.latestId()).toBe(4);
    expect(await jobs.findById(1)).toEqual({
      id: 1,
      blogId: 'b1',
      blogSlug: 'one',
      kind: 'post',
      payload: { postId: 'p1' },
      status: 'pending',
      attempts: 0,
      lastError: null,
      runAfter: T0,
      createdAt: T0,
      updatedAt: T0,
    });
    expect(await jobs.findById(9)).toBeNull();
    expect((await jobs.listDue(T0, 10)).map((j) => j.id)).toEqual([1, 2, 3]);
    expect((await jobs.listDue(LATER, 2)).map((j) => j.id)).toEqual([1, 2]);
    expect((await jobs.pendingFrom('b1', 2, 10)).map((j) => j.id)).toEqual([2, 4]);
    expect(await jobs.countPendingPostJobs('b1')).toBe(2);
    expect((await jobs.postJobsSince('b1', 1)).map((j) => j.id)).toEqual([4]);
    expect(await jobs.markDone(1, LATER)).toBe(true);
    expect(await jobs.markDone(1, LATER)).toBe(false);
    expect(await jobs.findById(1)).toMatchObject({ status: 'done', attempts: 1, updatedAt: LATER });
    await jobs.markAttemptFailed(2, 'boom', LATER, LATER, false);
    expect(await jobs.findById(2)).toMatchObject({ status: 'pending', attempts: 1, lastError: 'boom', runAfter: LATER });
    expect((await jobs.listDue(T0, 10)).map((j) => j.id)).toEqual([3]);
    await sql.transaction((tx) => jobs.in(tx).markAttemptFailed(2, 'boom again', LATER, LATER, true));
    expect(await jobs.findById(2)).toMatchObject({ status: 'failed', attempts: 2, lastError: 'boom again' });
    expect((await jobs.listOpenForBlog('b1')).map((j) => [j.id, j.status])).toEqual([
      [2, 'failed'],
      [4, 'pending'],
    ]);
    await jobs.markAllDone([3, 4], LATER);
    await sql.transaction((tx) => jobs.in(tx).markAllDone([4], LATER));
    expect([await jobs.countByStatus('done'), await jobs.countByStatus('failed'), await jobs.countByStatus('pending')]).toEqual([3, 1, 0]);
    expect((await jobs.postJobsSince('b1', 0)).map((j) => [j.id, j.status])).toEqual([
      [1, 'done'],
      [4, 'done'],
    ]);
  });
});

describe('render stamps on PostgreSQL', () => {
  it('are merged per blog, read back, survive a damaged row as none, and are cleared; later jobs are probed', async () => {
    const sql = await seeded();
    const stamps = new RenderStampsRepo(sql);
    expect(await stamps.all()).toEqual({});
    await stamps.record('b1', { fingerprint: 'f1', afterJob: 1 }, T0);
    await sql.transaction((tx) => stamps.in(tx).record('b1', { searchTextVersion: 's1', afterJob: 2 }, LATER));
    await stamps.record('b2', { afterJob: 3 }, LATER);
    expect(await stamps.all()).toEqual({ b1: { fingerprint: 'f1', searchTextVersion: 's1', afterJob: 2 }, b2: { afterJob: 3 } });
    await sql.run("UPDATE settings SET value = '{broken' WHERE key = 'rendered_outside_server'");
    expect(await stamps.all()).toEqual({});
    await stamps.clear();
    expect(await sql.get("SELECT value FROM settings WHERE key = 'rendered_outside_server'")).toBeUndefined();
    const jobs = new JobsRepo(sql);
    await jobs.insert({ blogId: 'b1', blogSlug: 'one', kind: 'discovery', payload: {}, now: T0 });
    await jobs.insert({ blogId: 'b1', blogSlug: 'one', kind: 'site', payload: {}, now: T0 });
    expect(await stamps.hasJobAfter('b1', 0)).toBe(true);
    expect(await stamps.hasJobAfter('b1', 2)).toBe(false);
    expect(await stamps.hasJobAfter('b2', 0)).toBe(false);
  });
});

describe('settings on PostgreSQL', () => {
  it('are set, replaced, read, and found by prefix and value', async () => {
    const sql = await seeded();
    const settings = new SettingsRepo(sql);
    expect(await settings.get('a')).toBeNull();
    await settings.set('store:one', 'ok', T0);
    await settings.set('store:two', 'stale', T0);
    await sql.transaction((tx) => settings.in(tx).set('store:two', 'ok', LATER));
    await settings.set('other', 'ok', T0);
    expect(await settings.get('store:two')).toBe('ok');
    expect((await settings.keysWithValue('store:', 'ok')).sort()).toEqual(['store:one', 'store:two']);
    expect(await settings.keysWithValue('store:', 'stale')).toEqual([]);
    expect(await sql.get("SELECT updated_at FROM settings WHERE key = 'store:two'")).toEqual({ updated_at: LATER });
  });
});

describe('the webhook queue on PostgreSQL', () => {
  it('queues one delivery per webhook of the blog subscribed to the event', async () => {
    const sql = await seeded();
    const insert = 'INSERT INTO webhooks (id, blog_id, url, events, secret, created_at) VALUES (?, ?, ?, ?, ?, ?)';
    await sql.run(insert, ['w1', 'b1', 'https://example.com/1', '["post.published","post.deleted"]', 's', T0]);
    await sql.run(insert, ['w2', 'b1', 'https://example.com/2', '["post.deleted"]', 's', T0]);
    const queue = new WebhookQueueRepo(sql);
    expect(await queue.enqueue('b1', 'post.published', '{"n":1}', T0)).toBe(1);
    expect(await sql.transaction((tx) => queue.in(tx).enqueue('b1', 'post.deleted', '{"n":2}', LATER))).toBe(2);
    expect(await queue.enqueue('b1', 'domain.verified', '{}', LATER)).toBe(0);
    expect(
      await sql.all('SELECT webhook_id, event_type, payload, status, attempts, next_attempt_at FROM webhook_deliveries ORDER BY created_at, webhook_id'),
    ).toEqual([
      { webhook_id: 'w1', event_type: 'post.published', payload: '{"n":1}', status: 'pending', attempts: 0, next_attempt_at: T0 },
      { webhook_id: 'w1', event_type: 'post.deleted', payload: '{"n":2}', status: 'pending', attempts: 0, next_attempt_at: LATER },
      { webhook_id: 'w2', event_type: 'post.deleted', payload: '{"n":2}', status: 'pending', attempts: 0, next_attempt_at: LATER },
    ]);
  });
});
