import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { actorFor, buildBlog, createKey, expectError, expectFieldError, ISO_MS, sortedKeys, uniqueSlug, type BuiltBlog } from '../support/factories.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /v1/blogs/:id/api-keys', () => {
  let blog: BuiltBlog;
  beforeAll(async () => {
    blog = await buildBlog(t);
  });

  it('answers 201 with exactly id, name, key, prefix, created_at and expires_at', async () => {
    const res = await blog.actor.request('POST', `/v1/blogs/${blog.id}/api-keys`, { body: { name: 'CI' } });
    expect(res.status).toBe(201);
    expect(sortedKeys(res.body)).toEqual(['created_at', 'expires_at', 'id', 'key', 'name', 'prefix']);
    expect(res.body.expires_at).toBeNull();
    expect(res.body.id).toMatch(UUID);
    expect(res.body.name).toBe('CI');
    expect(res.body.key).toMatch(/^pk_live_[A-Za-z0-9_-]{32,}$/);
    expect(res.body.prefix).toBe(res.body.key.slice(0, 12));
    expect(res.body.created_at).toMatch(ISO_MS);
  });

  it('names the key Default when no name is given, also without a body', async () => {
    expect((await createKey(blog.actor, blog.id)).name).toBe('Default');
    const res = await blog.actor.request('POST', `/v1/blogs/${blog.id}/api-keys`);
    expect(res.status).toBe(201);
    expect(res.body.name).toBe('Default');
  });

  it('makes a different key each time, never storing the key itself', async () => {
    const a = await createKey(blog.actor, blog.id);
    const b = await createKey(blog.actor, blog.id);
    expect(a.key).not.toBe(b.key);
    const stored = await t.folio.sql.get<Record<string, unknown>>('SELECT * FROM api_keys WHERE id = ?', [a.id]);
    expect(JSON.stringify(stored)).not.toContain(a.key);
  });

  it('binds the key to the blog: it works on /posts without X-Blog-Id', async () => {
    const key = await createKey(blog.actor, blog.id);
    const res = await t.request('POST', '/v1/posts', { key: key.key, body: { title: 'Via bound key', content: 'x' } });
    expect(res.status).toBe(201);
    const list = await blog.actor.request('GET', '/v1/posts', { blogId: blog.id });
    expect(list.body.data.map((p: { id: string }) => p.id)).toContain(res.body.id);
  });

  it('answers 400 for unknown scopes, repeated scopes, an empty scope list and a blank name', async () => {
    expectFieldError(await blog.actor.request('POST', `/v1/blogs/${blog.id}/api-keys`, { body: { scopes: ['posts:delete'] } }), 'scopes[0]');
    expectFieldError(await blog.actor.request('POST', `/v1/blogs/${blog.id}/api-keys`, { body: { scopes: ['posts:read', 'posts:read'] } }), 'scopes');
    expectFieldError(await blog.actor.request('POST', `/v1/blogs/${blog.id}/api-keys`, { body: { scopes: [] } }), 'scopes');
    expectFieldError(await blog.actor.request('POST', `/v1/blogs/${blog.id}/api-keys`, { body: { name: '   ' } }), 'name');
    expectFieldError(await blog.actor.request('POST', `/v1/blogs/${blog.id}/api-keys`, { body: { name: 7 } }), 'name');
  });

  it('answers 400, not 500, for scopes holding objects that carry valueOf or toString', async () => {
    // Found by hostile.property.test.ts: ajv's uniqueItems deep-compared untyped items and threw.
    for (const scopes of [
      [{}, { valueOf: 9007199254740992 }],
      [{ valueOf: 1 }, { valueOf: 1 }],
      [{ toString: 'x' }, {}],
      [[], []],
    ]) {
      expectFieldError(await blog.actor.request('POST', `/v1/blogs/${blog.id}/api-keys`, { body: { scopes } }), 'scopes[0]');
    }
  });

  it('answers 404 for an unknown blog', async () => {
    expectError(await blog.actor.request('POST', '/v1/blogs/00000000-0000-4000-8000-000000000000/api-keys', { body: {} }), 404, 'not_found');
  });
});

describe('GET /v1/blogs/:id/api-keys', () => {
  it('lists the blog’s active keys with exactly id, name, key_prefix, last_used_at, created_at and expires_at', async () => {
    const blog = await buildBlog(t);
    const a = await createKey(blog.actor, blog.id, { name: 'a' });
    const b = await createKey(blog.actor, blog.id, { name: 'b' });
    const res = await blog.actor.request('GET', `/v1/blogs/${blog.id}/api-keys`);
    expect(res.status).toBe(200);
    expect(sortedKeys(res.body)).toEqual(['data']);
    expect(res.body.data.map((k: { id: string }) => k.id).sort()).toEqual([a.id, b.id].sort());
    for (const entry of res.body.data) {
      expect(sortedKeys(entry)).toEqual(['created_at', 'expires_at', 'id', 'key_prefix', 'last_used_at', 'name']);
      expect(entry.last_used_at).toBeNull();
      expect(entry.created_at).toMatch(ISO_MS);
    }
    expect(res.body.data.find((k: { id: string }) => k.id === a.id).key_prefix).toBe(a.prefix);
    expect(res.text).not.toContain(a.key);
    expect(res.text).not.toContain(b.key);
  });

  it('lists only the keys of that blog, not the account key or another blog’s', async () => {
    const blog = await buildBlog(t);
    const sibling = await buildBlog(t, { actor: blog.actor });
    await createKey(blog.actor, sibling.id);
    const own = await createKey(blog.actor, blog.id);
    const res = await blog.actor.request('GET', `/v1/blogs/${blog.id}/api-keys`);
    expect(res.body.data.map((k: { id: string }) => k.id)).toEqual([own.id]);
  });

  it('sets last_used_at when a key is used', async () => {
    const blog = await buildBlog(t);
    const key = await createKey(blog.actor, blog.id);
    t.clock.advance(120_000);
    const usedAt = t.clock.now().toISOString();
    expect((await t.request('GET', '/v1/posts', { key: key.key })).status).toBe(200);
    t.clock.advance(1000);
    const res = await blog.actor.request('GET', `/v1/blogs/${blog.id}/api-keys`);
    expect(res.body.data[0].last_used_at).toBe(usedAt);
    expect(res.body.data[0].last_used_at).toMatch(ISO_MS);
  });

  it('records use again after a minute, not on every request', async () => {
    const blog = await buildBlog(t);
    const key = await createKey(blog.actor, blog.id);
    const first = t.clock.now().toISOString();
    await t.request('GET', '/v1/posts', { key: key.key });
    t.clock.advance(10_000);
    await t.request('GET', '/v1/posts', { key: key.key });
    const lastUsed = async () => (await blog.actor.request('GET', `/v1/blogs/${blog.id}/api-keys`)).body.data[0].last_used_at;
    expect(await lastUsed()).toBe(first);
    t.clock.advance(60_000);
    await t.request('GET', '/v1/posts', { key: key.key });
    expect(await lastUsed()).toBe(t.clock.now().toISOString());
  });
});

describe('DELETE /v1/blogs/:id/api-keys/:keyId', () => {
  it('answers {deleted: true}; the key gets 401 on the very next request and is no longer listed', async () => {
    const blog = await buildBlog(t);
    const key = await createKey(blog.actor, blog.id);
    const keep = await createKey(blog.actor, blog.id);
    expect((await t.request('GET', '/v1/posts', { key: key.key })).status).toBe(200);
    const res = await blog.actor.request('DELETE', `/v1/blogs/${blog.id}/api-keys/${key.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deleted: true });
    expectError(await t.request('GET', '/v1/posts', { key: key.key }), 401, 'unauthorized');
    expectError(await t.request('POST', '/v1/posts', { key: key.key, body: { title: 'x', content: 'y' } }), 401, 'unauthorized');
    const list = await blog.actor.request('GET', `/v1/blogs/${blog.id}/api-keys`);
    expect(list.body.data.map((k: { id: string }) => k.id)).toEqual([keep.id]);
    expect((await t.request('GET', '/v1/posts', { key: keep.key })).status).toBe(200);
  });

  it('lets a key revoke itself, after which it is refused', async () => {
    const blog = await buildBlog(t);
    const key = await createKey(blog.actor, blog.id);
    const self = actorFor(t, key.key, blog.actor.accountId, blog.actor.plan);
    expect((await self.request('DELETE', `/v1/blogs/${blog.id}/api-keys/${key.id}`)).status).toBe(200);
    expectError(await self.request('GET', `/v1/blogs/${blog.id}/api-keys`), 401, 'unauthorized');
  });

  it('answers 404 for an unknown or already revoked key, and for a key of another blog', async () => {
    const blog = await buildBlog(t);
    const sibling = await buildBlog(t, { actor: blog.actor, slug: uniqueSlug('sib') });
    const key = await createKey(blog.actor, blog.id);
    const siblingKey = await createKey(blog.actor, sibling.id);
    expectError(await blog.actor.request('DELETE', `/v1/blogs/${blog.id}/api-keys/00000000-0000-4000-8000-000000000000`), 404, 'not_found');
    expectError(await blog.actor.request('DELETE', `/v1/blogs/${blog.id}/api-keys/${siblingKey.id}`), 404, 'not_found');
    expect((await t.request('GET', '/v1/posts', { key: siblingKey.key })).status).toBe(200);
    await blog.actor.request('DELETE', `/v1/blogs/${blog.id}/api-keys/${key.id}`);
    expectError(await blog.actor.request('DELETE', `/v1/blogs/${blog.id}/api-keys/${key.id}`), 404, 'not_found');
  });
});

describe('key scopes', () => {
  let blog: BuiltBlog;
  let reader: ReturnType<typeof actorFor>;
  beforeAll(async () => {
    blog = await buildBlog(t, { plan: 'enterprise' });
    await blog.actor.request('POST', '/v1/posts', { blogId: blog.id, body: { title: 'Readable', content: 'x', slug: 'readable' } });
    const key = await createKey(blog.actor, blog.id, { name: 'reader', scopes: ['posts:read'] });
    reader = actorFor(t, key.key, blog.actor.accountId, 'enterprise');
  });

  it('lets a posts:read key list and get posts', async () => {
    expect((await reader.request('GET', '/v1/posts')).status).toBe(200);
    expect((await reader.request('GET', '/v1/posts/readable')).status).toBe(200);
  });

  const refused: [string, string, unknown?][] = [
    ['POST', '/v1/posts', { title: 'x', content: 'y' }],
    ['PUT', '/v1/posts/readable', { title: 'changed' }],
    ['DELETE', '/v1/posts/readable'],
    ['POST', '/v1/posts/readable/publish'],
    ['POST', '/v1/posts/readable/unpublish'],
    ['POST', '/v1/posts/readable/schedule', { scheduled_at: '2031-01-01T00:00:00Z' }],
    ['GET', '/v1/search?q=x'],
    ['GET', '/v1/blogs'],
    ['POST', '/v1/blogs', { slug: 'from-reader', name: 'x' }],
    ['GET', '/v1/blogs/:id'],
    ['PUT', '/v1/blogs/:id', { name: 'x' }],
    ['DELETE', '/v1/blogs/:id'],
    ['GET', '/v1/blogs/:id/publishing'],
    ['GET', '/v1/blogs/:id/api-keys'],
    ['POST', '/v1/blogs/:id/api-keys', {}],
    ['DELETE', '/v1/blogs/:id/api-keys/00000000-0000-4000-8000-000000000000'],
    ['GET', '/v1/blogs/:id/domain'],
    ['POST', '/v1/blogs/:id/domain', { hostname: 'blog.example.com' }],
    ['DELETE', '/v1/blogs/:id/domain'],
  ];
  for (const [method, path, body] of refused) {
    it(`answers 403 to a posts:read key on ${method} ${path}`, async () => {
      const res = await reader.request(method, path.replace(':id', blog.id), body === undefined ? {} : { body });
      expectError(res, 403, 'forbidden');
      expect(res.body.required_plan).toBeUndefined();
    });
  }

  it('left everything unchanged after the refused calls', async () => {
    const post = await blog.actor.request('GET', '/v1/posts/readable', { blogId: blog.id });
    expect(post.body).toMatchObject({ title: 'Readable', status: 'draft' });
    expect((await blog.actor.request('GET', `/v1/blogs/${blog.id}`)).status).toBe(200);
  });

  it('does not let a limited key mint a key with wider scopes', async () => {
    const manager = actorFor(t, (await createKey(blog.actor, blog.id, { scopes: ['keys:manage', 'posts:read'] })).key, blog.actor.accountId, 'enterprise');
    expectError(await manager.request('POST', `/v1/blogs/${blog.id}/api-keys`, { body: { scopes: ['*'] } }), 403, 'forbidden');
    expectError(await manager.request('POST', `/v1/blogs/${blog.id}/api-keys`, { body: {} }), 403, 'forbidden');
    expectError(await manager.request('POST', `/v1/blogs/${blog.id}/api-keys`, { body: { scopes: ['posts:write'] } }), 403, 'forbidden');
    const narrower = await manager.request('POST', `/v1/blogs/${blog.id}/api-keys`, { body: { scopes: ['posts:read'] } });
    expect(narrower.status).toBe(201);
    expectError(await t.request('POST', '/v1/posts', { key: narrower.body.key, body: { title: 'x', content: 'y' } }), 403, 'forbidden');
  });

  it('lets a write scope do what it names and nothing else', async () => {
    const writer = actorFor(t, (await createKey(blog.actor, blog.id, { scopes: ['posts:write'] })).key, blog.actor.accountId, 'enterprise');
    expect((await writer.request('POST', '/v1/posts', { body: { title: 'Written', content: 'x' } })).status).toBe(201);
    expectError(await writer.request('GET', '/v1/posts'), 403, 'forbidden');
  });
});
