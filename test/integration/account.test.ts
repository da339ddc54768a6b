import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { buildAccount, buildBlog, createKey, ISO_MS } from '../support/factories.js';

/** GET /v1/account: the key's account with its plan's limits and usage. */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('GET /v1/account', () => {
  it('answers a creator account with its limits and blog count, for a blog-bound key too', async () => {
    const owner = await buildAccount(t, 'creator');
    const blog = await buildBlog(t, { actor: owner });
    const res = await owner.request('GET', '/v1/account');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      id: owner.accountId,
      email: null,
      plan: 'creator',
      created_at: expect.stringMatching(ISO_MS),
      limits: { blogs: 3, requests_per_hour: 1000 },
      usage: { blogs: 1 },
    });
    const bound = await createKey(owner, blog.id, { scopes: ['blogs:read'] });
    const viaBound = await t.request('GET', '/v1/account', { key: bound.key });
    expect(viaBound.status, viaBound.text).toBe(200);
    expect(viaBound.body.id).toBe(owner.accountId);
  });

  it('answers null for a limit the plan does not have', async () => {
    const owner = await buildAccount(t, 'enterprise');
    await buildBlog(t, { actor: owner });
    await buildBlog(t, { actor: owner });
    const res = await owner.request('GET', '/v1/account');
    expect(res.status, res.text).toBe(200);
    expect(res.body.plan).toBe('enterprise');
    expect(res.body.limits).toEqual({ blogs: null, requests_per_hour: 100_000 });
    expect(res.body.usage).toEqual({ blogs: 2 });
  });

  it('needs blogs:read and a valid key', async () => {
    const owner = await buildAccount(t, 'free');
    const blog = await buildBlog(t, { actor: owner });
    const writer = await createKey(owner, blog.id, { scopes: ['posts:write'] });
    expect((await t.request('GET', '/v1/account', { key: writer.key })).status).toBe(403);
    expect((await t.request('GET', '/v1/account', { key: 'folio_not_a_key' })).status).toBe(401);
  });
});
