import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { actorFor, buildAccount, buildBlog, createKey, expectError, expectFieldError, ISO_MS, sortedKeys, type Actor } from '../support/factories.js';

/** Account keys: keys bound to no blog, managed through /v1/account/api-keys. */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MISSING_KEY = '00000000-0000-4000-8000-00000000beef';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

interface CreatedAccountKey {
  id: string;
  name: string;
  key: string;
  prefix: string;
  scopes: string[];
  created_at: string;
}

async function createAccountKey(actor: Actor, body: Record<string, unknown> = {}): Promise<CreatedAccountKey> {
  const res = await actor.request('POST', '/v1/account/api-keys', { body });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

async function listIds(actor: Actor): Promise<string[]> {
  const res = await actor.request('GET', '/v1/account/api-keys');
  expect(res.status, res.text).toBe(200);
  return res.body.data.map((k: { id: string }) => k.id);
}

/** The id of the account key the actor authenticates with (the one `folio account create` made). */
async function ownKeyId(actor: Actor): Promise<string> {
  const ids = await listIds(actor);
  const row = (await t.folio.sql.get<{ id: string }>('SELECT id FROM api_keys WHERE account_id = ? AND blog_id IS NULL ORDER BY created_at, id LIMIT 1', [
    actor.accountId,
  ]))!;
  expect(ids).toContain(row.id);
  return row.id;
}

describe('account key lifecycle over HTTP', () => {
  it('creates, lists by prefix only, works, is revoked, then gets 401 and is no longer listed', async () => {
    const owner = await buildAccount(t);
    const created = await owner.request('POST', '/v1/account/api-keys', { body: { name: 'Laptop' } });
    expect(created.status).toBe(201);
    expect(sortedKeys(created.body)).toEqual(['created_at', 'expires_at', 'id', 'key', 'name', 'prefix', 'scopes']);
    const key = created.body as CreatedAccountKey;
    expect(key.id).toMatch(UUID);
    expect(key.name).toBe('Laptop');
    expect(key.key).toMatch(/^pk_live_[A-Za-z0-9_-]{32,}$/);
    expect(key.prefix).toBe(key.key.slice(0, 12));
    expect(key.scopes).toEqual(['*']);
    expect(key.created_at).toMatch(ISO_MS);
    const row = await t.folio.sql.get<Record<string, unknown>>('SELECT * FROM api_keys WHERE id = ?', [key.id]);
    expect(row).toMatchObject({ account_id: owner.accountId, blog_id: null, revoked_at: null });
    expect(JSON.stringify(row)).not.toContain(key.key);

    const list = await owner.request('GET', '/v1/account/api-keys');
    expect(list.status).toBe(200);
    expect(sortedKeys(list.body)).toEqual(['data']);
    expect(list.text).not.toContain(key.key);
    expect(list.text).not.toContain(owner.key);
    const entry = list.body.data.find((k: { id: string }) => k.id === key.id);
    expect(sortedKeys(entry)).toEqual(['created_at', 'expires_at', 'id', 'key_prefix', 'last_used_at', 'name', 'scopes']);
    expect(entry).toEqual({
      id: key.id,
      name: 'Laptop',
      key_prefix: key.prefix,
      scopes: ['*'],
      last_used_at: null,
      created_at: key.created_at,
      expires_at: null,
    });

    // The new key acts for the account: it can create a blog and see it.
    const laptop = actorFor(t, key.key, owner.accountId, owner.plan);
    const blog = await buildBlog(t, { actor: laptop });
    expect((await laptop.request('GET', `/v1/blogs/${blog.id}`)).status).toBe(200);
    const used = (await owner.request('GET', '/v1/account/api-keys')).body.data.find((k: { id: string }) => k.id === key.id);
    expect(used.last_used_at).toMatch(ISO_MS);

    const revoked = await owner.request('DELETE', `/v1/account/api-keys/${key.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ deleted: true });
    expectError(await laptop.request('GET', `/v1/blogs/${blog.id}`), 401, 'unauthorized');
    expectError(await laptop.request('GET', '/v1/account/api-keys'), 401, 'unauthorized');
    expect(await listIds(owner)).not.toContain(key.id);
    expect((await owner.request('GET', `/v1/blogs/${blog.id}`)).status).toBe(200);
  });

  it('names the key "Account key" and gives it every scope when the body says nothing, also without a body', async () => {
    const owner = await buildAccount(t);
    expect(await createAccountKey(owner)).toMatchObject({ name: 'Account key', scopes: ['*'] });
    const res = await owner.request('POST', '/v1/account/api-keys');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'Account key', scopes: ['*'] });
  });

  it('stores the scopes given, once each, and the key holds exactly them', async () => {
    const owner = await buildAccount(t);
    const reader = await createAccountKey(owner, { name: 'reader', scopes: ['blogs:read', 'posts:read'] });
    expect(reader.scopes).toEqual(['blogs:read', 'posts:read']);
    const entry = (await owner.request('GET', '/v1/account/api-keys')).body.data.find((k: { id: string }) => k.id === reader.id);
    expect(entry.scopes).toEqual(['blogs:read', 'posts:read']);
    const asReader = actorFor(t, reader.key, owner.accountId, owner.plan);
    expect((await asReader.request('GET', '/v1/blogs')).status).toBe(200);
    expectError(await asReader.request('POST', '/v1/blogs', { body: { slug: 'nope-reader', name: 'x' } }), 403, 'forbidden');
  });

  it('lists only the account’s active account keys, newest first, not its blog-bound keys', async () => {
    const owner = await buildAccount(t);
    const first = await ownKeyId(owner);
    t.clock.advance(1000);
    const second = await createAccountKey(owner, { name: 'second' });
    t.clock.advance(1000);
    const third = await createAccountKey(owner, { name: 'third' });
    const blog = await buildBlog(t, { actor: owner });
    const bound = await createKey(owner, blog.id);
    expect(await listIds(owner)).toEqual([third.id, second.id, first]);
    expect(await listIds(owner)).not.toContain(bound.id);
    // Another account's account keys are not listed either.
    const other = await buildAccount(t);
    const otherKey = await createAccountKey(other);
    expect(await listIds(owner)).not.toContain(otherKey.id);
  });
});

describe('DELETE /v1/account/api-keys/:keyId', () => {
  it('lets a key revoke itself: 200, then 401 on its very next request, while the other key works', async () => {
    const owner = await buildAccount(t);
    const spare = await createAccountKey(owner, { name: 'spare' });
    const self = actorFor(t, spare.key, owner.accountId, owner.plan);
    expect((await self.request('GET', '/v1/account/api-keys')).status).toBe(200);
    const res = await self.request('DELETE', `/v1/account/api-keys/${spare.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deleted: true });
    expectError(await self.request('GET', '/v1/account/api-keys'), 401, 'unauthorized');
    expect(await listIds(owner)).not.toContain(spare.id);
  });

  it('refuses to revoke the account’s last account key with 409, and the key keeps working', async () => {
    const owner = await buildAccount(t);
    const only = await ownKeyId(owner);
    const res = await owner.request('DELETE', `/v1/account/api-keys/${only}`);
    expectError(res, 409, 'conflict');
    expect(res.body.message).toMatch(/last account key/);
    expect(res.body.message).toMatch(/create another account key first/);
    expect(await listIds(owner)).toEqual([only]);
  });

  it('counts only account keys: blog-bound keys do not make the last account key revocable', async () => {
    const owner = await buildAccount(t);
    const only = await ownKeyId(owner);
    const blog = await buildBlog(t, { actor: owner });
    const bound = await createKey(owner, blog.id);
    expectError(await owner.request('DELETE', `/v1/account/api-keys/${only}`), 409, 'conflict');
    // Not even the blog-bound key (which acts for the whole account) may take it away.
    const viaBound = actorFor(t, bound.key, owner.accountId, owner.plan);
    expectError(await viaBound.request('DELETE', `/v1/account/api-keys/${only}`), 409, 'conflict');
    expect((await owner.request('GET', '/v1/blogs')).status).toBe(200);
  });

  it('revokes the first key once a second exists, and then refuses the second (now the last)', async () => {
    const owner = await buildAccount(t);
    const first = await ownKeyId(owner);
    const second = await createAccountKey(owner, { name: 'replacement' });
    expect((await owner.request('DELETE', `/v1/account/api-keys/${first}`)).status).toBe(200);
    expectError(await owner.request('GET', '/v1/blogs'), 401, 'unauthorized');
    const next = actorFor(t, second.key, owner.accountId, owner.plan);
    expectError(await next.request('DELETE', `/v1/account/api-keys/${second.id}`), 409, 'conflict');
    expect(await listIds(next)).toEqual([second.id]);
  });

  it('answers 404 for an unknown id, an already revoked key and a blog-bound key id, which keeps working', async () => {
    const owner = await buildAccount(t);
    const spare = await createAccountKey(owner);
    const blog = await buildBlog(t, { actor: owner });
    const bound = await createKey(owner, blog.id);
    const missing = await owner.request('DELETE', `/v1/account/api-keys/${MISSING_KEY}`);
    expectError(missing, 404, 'not_found');
    expectError(await owner.request('DELETE', '/v1/account/api-keys/not-a-uuid'), 404, 'not_found');
    const viaAccount = await owner.request('DELETE', `/v1/account/api-keys/${bound.id}`);
    expectError(viaAccount, 404, 'not_found');
    expect(viaAccount.body).toEqual(missing.body);
    expect((await t.request('GET', '/v1/posts', { key: bound.key })).status).toBe(200);
    expect((await owner.request('DELETE', `/v1/account/api-keys/${spare.id}`)).status).toBe(200);
    const again = await owner.request('DELETE', `/v1/account/api-keys/${spare.id}`);
    expectError(again, 404, 'not_found');
    expect(again.body).toEqual(missing.body);
  });

  it('answers 404 for another account’s key id, exactly as for a missing one, and that key keeps working', async () => {
    const a = await buildAccount(t);
    const aSpare = await createAccountKey(a);
    const b = await buildAccount(t);
    await createAccountKey(b);
    const foreign = await b.request('DELETE', `/v1/account/api-keys/${aSpare.id}`);
    const missing = await b.request('DELETE', `/v1/account/api-keys/${MISSING_KEY}`);
    expectError(foreign, 404, 'not_found');
    expect(foreign.body).toEqual(missing.body);
    expect((await t.request('GET', '/v1/blogs', { key: aSpare.key })).status).toBe(200);
    expect(await listIds(a)).toContain(aSpare.id);
  });
});

describe('account key scopes', () => {
  it('answers 403 on all three routes to a key without keys:manage', async () => {
    const owner = await buildAccount(t);
    const spare = await createAccountKey(owner);
    const limited = actorFor(t, (await createAccountKey(owner, { scopes: ['posts:read', 'blogs:read', 'blogs:write'] })).key, owner.accountId, owner.plan);
    for (const [method, path, body] of [
      ['GET', '/v1/account/api-keys', undefined],
      ['POST', '/v1/account/api-keys', {}],
      ['DELETE', `/v1/account/api-keys/${spare.id}`, undefined],
    ] as const) {
      expectError(await limited.request(method, path, body === undefined ? {} : { body }), 403, 'forbidden');
    }
    expect(await listIds(owner)).toContain(spare.id);
  });

  it('does not let a key mint an account key with scopes it does not hold', async () => {
    const owner = await buildAccount(t);
    const managerKey = await createAccountKey(owner, { scopes: ['keys:manage', 'posts:read'] });
    const manager = actorFor(t, managerKey.key, owner.accountId, owner.plan);
    const before = (await listIds(owner)).length;
    expectError(await manager.request('POST', '/v1/account/api-keys', { body: { scopes: ['*'] } }), 403, 'forbidden');
    expectError(await manager.request('POST', '/v1/account/api-keys', { body: {} }), 403, 'forbidden');
    expectError(await manager.request('POST', '/v1/account/api-keys', { body: { scopes: ['posts:read', 'posts:write'] } }), 403, 'forbidden');
    expect(await listIds(owner)).toHaveLength(before);
    const narrower = await manager.request('POST', '/v1/account/api-keys', { body: { scopes: ['posts:read'] } });
    expect(narrower.status).toBe(201);
    expectError(await t.request('GET', '/v1/blogs', { key: narrower.body.key }), 403, 'forbidden');
  });

  it('lets a blog-bound key with keys:manage manage account keys (every key acts for its account)', async () => {
    const owner = await buildAccount(t);
    const blog = await buildBlog(t, { actor: owner });
    const bound = actorFor(t, (await createKey(owner, blog.id)).key, owner.accountId, owner.plan);
    const made = await createAccountKey(bound, { name: 'from a blog key' });
    expect(await listIds(bound)).toContain(made.id);
    expect((await bound.request('DELETE', `/v1/account/api-keys/${made.id}`)).status).toBe(200);
  });
});

describe('POST /v1/account/api-keys validation', () => {
  let owner: Actor;
  beforeAll(async () => {
    owner = await buildAccount(t);
  });
  const post = (body: unknown) => owner.request('POST', '/v1/account/api-keys', { body });

  it('accepts a name of 100 characters and refuses 101', async () => {
    expect((await post({ name: 'n'.repeat(100) })).status).toBe(201);
    expectFieldError(await post({ name: 'n'.repeat(101) }), 'name');
  });

  it('answers 400 for a blank or non-string name, unknown or repeated scopes, an empty scope list and an unknown field', async () => {
    const before = (await listIds(owner)).length;
    expectFieldError(await post({ name: '  ' }), 'name');
    expectFieldError(await post({ name: 7 }), 'name');
    expectFieldError(await post({ scopes: ['posts:delete'] }), 'scopes[0]');
    expectFieldError(await post({ scopes: ['posts:read', 'posts:read'] }), 'scopes');
    expectFieldError(await post({ scopes: [] }), 'scopes');
    expectFieldError(await post({ scopes: 'posts:read' }), 'scopes');
    expectFieldError(await post({ name: 'x', blog_id: MISSING_KEY }), 'blog_id');
    expect(await listIds(owner)).toHaveLength(before);
  });

  it('answers 400 to a DELETE with a body (it takes none), revoking nothing', async () => {
    const spare = await createAccountKey(owner);
    expectError(await owner.request('DELETE', `/v1/account/api-keys/${spare.id}`, { body: { force: true } }), 400, 'bad_request');
    expect(await listIds(owner)).toContain(spare.id);
  });
});
