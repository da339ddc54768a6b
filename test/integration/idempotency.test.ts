import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { image } from '../support/images.js';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { IdempotencyRepo } from '../../src/db/idempotencyRepo.js';
import { IDEMPOTENCY_LOCK_MS, IdempotencyService } from '../../src/services/idempotency.js';
import { loadConfig } from '../../src/config/config.js';
import { openConfiguredDatabase } from '../../src/compose/database.js';
import { actorFor, buildBlog, buildPost, expectError, postPath, type Actor } from '../support/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const postCount = async (blogId: string): Promise<number> =>
  (await t.folio.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM posts WHERE blog_id = ?', [blogId]))!.n;

describe('Idempotency-Key on POST', () => {
  it('answers a retry with the first response, without creating a second post', async () => {
    const blog = await buildBlog(t);
    const send = () =>
      blog.actor.request('POST', '/v1/posts', { blogId: blog.id, headers: { 'idempotency-key': 'retry-1' }, body: { title: 'Once', content: 'Only once.' } });
    const first = await send();
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await send();
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await postCount(blog.id)).toBe(1);
  });

  it('refuses the same key with another body, path or blog with 422 idempotency_key_reused, doing nothing', async () => {
    const blog = await buildBlog(t);
    const other = await buildBlog(t, { actor: blog.actor });
    const key = { 'idempotency-key': 'reused' };
    expect((await blog.actor.request('POST', '/v1/posts', { blogId: blog.id, headers: key, body: { title: 'A', content: 'a' } })).status).toBe(201);
    const changedBody = await blog.actor.request('POST', '/v1/posts', { blogId: blog.id, headers: key, body: { title: 'B', content: 'b' } });
    expectError(changedBody, 422, 'idempotency_key_reused');
    expectError(
      await blog.actor.request('POST', '/v1/posts', { blogId: other.id, headers: key, body: { title: 'A', content: 'a' } }),
      422,
      'idempotency_key_reused',
    );
    expectError(await blog.actor.request('POST', '/v1/blogs', { headers: key, body: { slug: `s-${Date.now()}`, name: 'x' } }), 422, 'idempotency_key_reused');
    expect(await postCount(blog.id)).toBe(1);
    expect(await postCount(other.id)).toBe(0);
  });

  it('keeps keys per account: another account may use the same key', async () => {
    const a = await buildBlog(t);
    const b = await buildBlog(t);
    const key = { 'idempotency-key': 'shared-key' };
    expect((await a.actor.request('POST', '/v1/posts', { blogId: a.id, headers: key, body: { title: 'A', content: 'a' } })).status).toBe(201);
    const res = await b.actor.request('POST', '/v1/posts', { blogId: b.id, headers: key, body: { title: 'A', content: 'a' } });
    expect(res.status).toBe(201);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
    expect(await postCount(b.id)).toBe(1);
  });

  it('makes concurrent duplicates wait for the first and get its answer', async () => {
    const blog = await buildBlog(t);
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        blog.actor.request('POST', '/v1/posts', {
          blogId: blog.id,
          headers: { 'idempotency-key': 'burst' },
          body: { title: 'Burst', content: 'x'.repeat(50_000), status: 'published' },
        }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(201));
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true')).toHaveLength(7);
    expect(await postCount(blog.id)).toBe(1);
  });

  it('does not keep failures: a refused request retried after the cause is fixed runs', async () => {
    const blog = await buildBlog(t);
    await buildPost(blog, { title: 'Taken', slug: 'taken' });
    const key = { 'idempotency-key': 'after-conflict' };
    const body = { title: 'New', content: 'n', slug: 'taken' };
    expectError(await blog.actor.request('POST', '/v1/posts', { blogId: blog.id, headers: key, body }), 409, 'conflict');
    expect((await blog.actor.request('DELETE', postPath('taken'), { blogId: blog.id })).status).toBe(200);
    const retried = await blog.actor.request('POST', '/v1/posts', { blogId: blog.id, headers: key, body });
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  });

  it('expires keys after 24 hours', async () => {
    const blog = await buildBlog(t);
    const send = () =>
      blog.actor.request('POST', '/v1/posts', { blogId: blog.id, headers: { 'idempotency-key': 'day' }, body: { title: 'Daily', content: 'd' } });
    expect((await send()).status).toBe(201);
    t.clock.advance(24 * 3600 * 1000 + 1);
    const later = await send();
    expect(later.status).toBe(201);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect(await postCount(blog.id)).toBe(2);
  });

  it('covers publish and uploads too, and refuses malformed keys', async () => {
    const blog = await buildBlog(t);
    await buildPost(blog, { title: 'P', slug: 'p' });
    const key = { 'idempotency-key': 'publish-p' };
    const first = await blog.actor.request('POST', postPath('p', '/publish'), { blogId: blog.id, headers: key });
    const again = await blog.actor.request('POST', postPath('p', '/publish'), { blogId: blog.id, headers: key });
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');

    const png = await image('png', 32, 32);
    const upload = () =>
      t.request('POST', '/v1/media', {
        key: blog.actor.key,
        blogId: blog.id,
        raw: png,
        headers: { 'content-type': 'image/png', 'idempotency-key': 'upload-1' },
      });
    expect((await upload()).status).toBe(201);
    const replay = await upload();
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const otherImage = await t.request('POST', '/v1/media', {
      key: blog.actor.key,
      blogId: blog.id,
      raw: await image('png', 33, 33),
      headers: { 'content-type': 'image/png', 'idempotency-key': 'upload-1' },
    });
    expectError(otherImage, 422, 'idempotency_key_reused');

    expectError(
      await blog.actor.request('POST', '/v1/posts', { blogId: blog.id, headers: { 'idempotency-key': 'x'.repeat(256) }, body: { title: 'a', content: 'b' } }),
      400,
      'bad_request',
    );
    expectError(
      await blog.actor.request('POST', '/v1/posts', { blogId: blog.id, headers: { 'idempotency-key': 'has space' }, body: { title: 'a', content: 'b' } }),
      400,
      'bad_request',
    );
  });

  it('a key whose first request died (a crash) is taken over once its lock lapses, not before', async () => {
    const blog = await buildBlog(t);
    const service = new IdempotencyService({ sql: t.folio.sql, repo: new IdempotencyRepo(t.folio.sql), clock: t.clock, waitMs: 100 });
    const account = { accountId: blog.actor.accountId, keyId: 'key-of-the-crashed-request' };
    expect(await service.start(account, 'crashed', 'fp')).toEqual({ kind: 'run' });
    // Never completed. A retry within the lock waits, then gives up with a 409 to retry later.
    await expect(service.start(account, 'crashed', 'fp')).rejects.toMatchObject({ code: 'conflict', status: 409 });
    t.clock.advance(IDEMPOTENCY_LOCK_MS + 1);
    expect(await service.start(account, 'crashed', 'fp')).toEqual({ kind: 'run' });
    await service.succeeded(account, 'crashed', 201, { id: 'x' });
    expect(await service.start(account, 'crashed', 'fp')).toEqual({ kind: 'replay', status: 201, body: { id: 'x' } });
  });

  it('deletes expired records a hundred at a time, on each claim, and keeps the live ones', async () => {
    const blog = await buildBlog(t);
    const repo = new IdempotencyRepo(t.folio.sql);
    const service = new IdempotencyService({ sql: t.folio.sql, repo, clock: t.clock });
    const owner = { accountId: blog.actor.accountId, keyId: 'key-of-old-requests' };
    const past = new Date(t.clock.now().getTime() - 1000).toISOString();
    for (let i = 0; i < 150; i++) await repo.claim(owner, { key: `old-${i}`, fingerprint: 'fp', lockedUntil: past, createdAt: past, expiresAt: past });
    const rows = async () => (await t.folio.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM idempotency_keys WHERE api_key_id = ?', [owner.keyId]))!.n;
    expect(await rows()).toBe(150);
    await service.start(owner, 'new-1', 'fp');
    expect(await rows()).toBe(51);
    await service.start(owner, 'new-2', 'fp');
    expect(await rows()).toBe(2);
    expect(await repo.find(owner, 'new-1')).toMatchObject({ state: 'pending' });
  });
});

/** A second key of `actor`'s account holding only `scopes`. */
async function keyWith(actor: Actor, scopes: string[]): Promise<Actor> {
  const res = await actor.request('POST', '/v1/account/api-keys', { body: { name: scopes.join(' '), scopes } });
  expect(res.status, res.text).toBe(201);
  return actorFor(t, res.body.key, actor.accountId, 'enterprise');
}

describe('Idempotency-Key and the key that sent the first request', () => {
  it('replays only to the same API key: another key of the account sending the same request gets its own authorization result', async () => {
    const blog = await buildBlog(t);
    const keysOnly = await keyWith(blog.actor, ['keys:manage']);
    const mint = { headers: { 'idempotency-key': 'mint-full-key' }, body: { name: 'full', scopes: ['*'] } };
    const first = await blog.actor.request('POST', `/v1/blogs/${blog.id}/api-keys`, mint);
    expect(first.status, first.text).toBe(201);
    // Same Idempotency-Key, same body, another key: never the first key's answer (a full `*` key).
    const other = await keysOnly.request('POST', `/v1/blogs/${blog.id}/api-keys`, mint);
    expectError(other, 403, 'forbidden');
    expect(other.text).not.toContain(first.body.key);

    const writer = await keyWith(blog.actor, ['blogs:write']);
    const hook = { headers: { 'idempotency-key': 'hook-1' }, body: { url: 'https://93.184.216.34/a', events: ['post.published'] } };
    const created = await blog.actor.request('POST', `/v1/blogs/${blog.id}/webhooks`, hook);
    expect(created.status, created.text).toBe(201);
    // The writer may create webhooks: its request runs as its own, with its own secret.
    const own = await writer.request('POST', `/v1/blogs/${blog.id}/webhooks`, hook);
    expect(own.status, own.text).toBe(201);
    expect(own.headers.get('idempotent-replayed')).toBeNull();
    expect(own.body.id).not.toBe(created.body.id);
    expect(own.body.secret).not.toBe(created.body.secret);
    // Posts too: the same request from another key is a second post, not the first one's answer.
    const post = { blogId: blog.id, headers: { 'idempotency-key': 'post-1' }, body: { title: 'Mine', content: 'x' } };
    const mine = await blog.actor.request('POST', '/v1/posts', post);
    const theirs = await (await keyWith(blog.actor, ['posts:write'])).request('POST', '/v1/posts', { ...post, body: { ...post.body, slug: 'theirs' } });
    expect(mine.status).toBe(201);
    expect(theirs.status).toBe(201);
    expect(theirs.body.id).not.toBe(mine.body.id);
  });

  it('never stores a secret shown once: a retry of a key or webhook creation is a 409 naming what was created, and the database holds no secret', async () => {
    const blog = await buildBlog(t);
    const keyCount = async () => (await t.folio.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM api_keys WHERE account_id = ?', [blog.actor.accountId]))!.n;
    const mint = { headers: { 'idempotency-key': 'mint-once' }, body: { name: 'ci', scopes: ['posts:write'] } };
    const first = await blog.actor.request('POST', `/v1/blogs/${blog.id}/api-keys`, mint);
    expect(first.status, first.text).toBe(201);
    const keys = await keyCount();
    const retry = await blog.actor.request('POST', `/v1/blogs/${blog.id}/api-keys`, mint);
    expectError(retry, 409, 'conflict');
    expect(retry.body.message).toContain(first.body.id);
    expect(retry.text).not.toContain(first.body.key);
    expect(await keyCount()).toBe(keys);

    const accountMint = { ...mint, headers: { 'idempotency-key': 'mint-account-once' } };
    const account = await blog.actor.request('POST', '/v1/account/api-keys', accountMint);
    expect(account.status, account.text).toBe(201);
    expectError(await blog.actor.request('POST', '/v1/account/api-keys', accountMint), 409, 'conflict');

    const hook = { headers: { 'idempotency-key': 'hook-once' }, body: { url: 'https://93.184.216.34/once', events: ['post.published'] } };
    const created = await blog.actor.request('POST', `/v1/blogs/${blog.id}/webhooks`, hook);
    expect(created.status, created.text).toBe(201);
    const again = await blog.actor.request('POST', `/v1/blogs/${blog.id}/webhooks`, hook);
    expectError(again, 409, 'conflict');
    expect(again.body.message).toContain(created.body.id);
    expect((await blog.actor.request('GET', `/v1/blogs/${blog.id}/webhooks`)).body.data).toHaveLength(1);

    // What a backup would copy: the database itself, read by another connection.
    const other = await openConfiguredDatabase(loadConfig(t.cliEnv));
    try {
      const rows = await other.sql.all('SELECT * FROM idempotency_keys WHERE account_id = ?', [blog.actor.accountId]);
      expect(rows).toHaveLength(3);
      const stored = JSON.stringify(rows);
      for (const secret of [first.body.key, account.body.key, created.body.secret]) expect(stored).not.toContain(secret);
      expect(stored).not.toMatch(/pk_live_[A-Za-z0-9]{20}|whsec_/);
    } finally {
      await other.close();
    }
  });
});
