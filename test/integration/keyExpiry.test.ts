import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ApiKeysRepo } from '../../src/db/apiKeysRepo.js';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { runCliCaptured } from '../support/runCliCaptured.js';
import { buildAccount, buildBlog, createKey, expectError, expectFieldError, ISO_MS, type Actor } from '../support/factories.js';

/**
 * Keys that expire (`expires_at`) and the `{resource}:*` scope wildcards, over real HTTP against
 * the real app. The app's clock is a FakeClock: tests move it past a key's expiry.
 */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());
afterEach(() => {
  vi.restoreAllMocks();
});

const HOUR = 3_600_000;
const later = (ms: number): string => new Date(t.clock.now().getTime() + ms).toISOString();

async function accountKey(actor: Actor, body: Record<string, unknown>) {
  const res = await actor.request('POST', '/v1/account/api-keys', { body });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; key: string; scopes: string[]; expires_at: string | null };
}

function expectExpired(res: { status: number; body: { message?: string } } & Parameters<typeof expectError>[0], expiresAt: string): void {
  expectError(res, 401, 'unauthorized');
  expect(res.body.message).toBe(
    `this API key expired at ${expiresAt}; use a key that has not expired, or make a new one (POST /v1/account/api-keys, folio account create-key)`,
  );
}

describe('expires_at on key creation and in lists', () => {
  it('answers a blog key’s expires_at as UTC with milliseconds, and lists it', async () => {
    const blog = await buildBlog(t);
    const inTwoDays = new Date(t.clock.now().getTime() + 48 * HOUR);
    // Given with an offset; answered in UTC.
    const local = `${inTwoDays.toISOString().slice(0, 19)}+09:00`;
    const created = await createKey(blog.actor, blog.id, { name: 'temp', expires_at: local });
    const expected = new Date(inTwoDays.getTime() - 9 * HOUR).toISOString();
    expect((created as { expires_at?: string }).expires_at).toBe(expected);
    const list = await blog.actor.request('GET', `/v1/blogs/${blog.id}/api-keys`);
    const entry = list.body.data.find((k: { id: string }) => k.id === created.id);
    expect(entry.expires_at).toBe(expected);
    expect(entry.expires_at).toMatch(ISO_MS);
  });

  it('answers an account key’s expires_at and lists it; null or absent means never', async () => {
    const actor = await buildAccount(t);
    const expiresAt = later(24 * HOUR);
    const created = await accountKey(actor, { expires_at: expiresAt });
    expect(created.expires_at).toBe(expiresAt);
    expect((await accountKey(actor, { expires_at: null })).expires_at).toBeNull();
    expect((await accountKey(actor, {})).expires_at).toBeNull();
    const list = await actor.request('GET', '/v1/account/api-keys');
    expect(list.body.data.find((k: { id: string }) => k.id === created.id).expires_at).toBe(expiresAt);
    expect(list.body.data.filter((k: { expires_at: string | null }) => k.expires_at === null)).toHaveLength(3);
  });

  it('accepts exactly ten years ahead, and refuses one millisecond more', async () => {
    const actor = await buildAccount(t);
    const now = t.clock.now();
    const tenYears = new Date(now.getTime());
    tenYears.setUTCFullYear(tenYears.getUTCFullYear() + 10);
    expect((await accountKey(actor, { expires_at: tenYears.toISOString() })).expires_at).toBe(tenYears.toISOString());
    const over = new Date(tenYears.getTime() + 1).toISOString();
    const res = await actor.request('POST', '/v1/account/api-keys', { body: { expires_at: over } });
    expectFieldError(res, 'expires_at');
    expect(res.body.message).toMatch(/expires_at must be at most ten years ahead/);
  });

  it('answers 400 naming expires_at for a past, present, malformed, zone-less or wrongly typed value, and stores nothing', async () => {
    const blog = await buildBlog(t);
    const before = (await blog.actor.request('GET', `/v1/blogs/${blog.id}/api-keys`)).body.data.length;
    const cases: [unknown, RegExp][] = [
      [later(-1), /in the future/],
      [t.clock.now().toISOString(), /in the future/],
      ['2020-01-01T00:00:00Z', /in the future/],
      ['2100-01-01T00:00:00Z', /at most ten years ahead/],
      ['2027-01-01T00:00:00', /time zone/],
      ['2027-01-01', /time zone/],
      ['tomorrow', /time zone/],
      ['2027-02-30T00:00:00Z', /time zone/],
      ['', /expires_at/],
      [1_900_000_000, /expires_at/],
      [true, /expires_at/],
      [{ at: '2027-01-01T00:00:00Z' }, /expires_at/],
      [['2027-01-01T00:00:00Z'], /expires_at/],
    ];
    for (const [value, message] of cases) {
      for (const path of [`/v1/blogs/${blog.id}/api-keys`, '/v1/account/api-keys']) {
        const res = await blog.actor.request('POST', path, { body: { expires_at: value } });
        expectFieldError(res, 'expires_at');
        expect(res.body.message, JSON.stringify(value)).toMatch(message);
      }
    }
    expect((await blog.actor.request('GET', `/v1/blogs/${blog.id}/api-keys`)).body.data).toHaveLength(before);
  });
});

describe('a key used before and after its expires_at', () => {
  it('works until the instant it names, then answers 401 saying it expired, also from the cache', async () => {
    const blog = await buildBlog(t);
    const expiresAt = later(HOUR);
    const { key } = await createKey(blog.actor, blog.id, { expires_at: expiresAt });
    // The new blog's first render runs in the background; on PostgreSQL its writes empty the key
    // cache (any write does), so the cache checks below wait until it is done.
    await t.folio.idle();
    expect((await t.request('GET', '/v1/posts', { key })).status).toBe(200);
    t.clock.set(new Date(Date.parse(expiresAt) - 1));
    expect((await t.request('GET', '/v1/posts', { key })).status).toBe(200);
    // The request does not wait for that write: on a loaded machine it could land after the
    // next request filled the cache, and empty it again. Read (never write) until it is there.
    const touched = new Date(Date.parse(expiresAt) - 1).toISOString();
    await vi.waitFor(async () => {
      const keys = await t.folio.repos.keys.listActiveForBlog(blog.id);
      expect(keys.map((k) => k.lastUsedAt)).toContain(touched);
    }, 10_000);
    // That request recorded last_used_at (a write, which empties the cache); this one writes
    // nothing and leaves the key in the in-memory cache, so the next must not read the database.
    expect((await t.request('GET', '/v1/posts', { key })).status).toBe(200);
    const reads = vi.spyOn(ApiKeysRepo.prototype as unknown as { readActiveByHash(hash: string): unknown }, 'readActiveByHash');
    t.clock.set(expiresAt);
    expectExpired(await t.request('GET', '/v1/posts', { key }), expiresAt);
    expect(reads).not.toHaveBeenCalled();
    // The spy does see reads: another key is not in the cache yet.
    expect((await blog.actor.request('GET', '/v1/posts', { blogId: blog.id })).status).toBe(200);
    expect(reads).toHaveBeenCalled();
    t.clock.advance(HOUR);
    expectExpired(await t.request('POST', '/v1/posts', { key, body: { title: 'Too late', content: 'x' } }), expiresAt);
    // Still listed, with its expiry, until it is revoked.
    const list = await blog.actor.request('GET', `/v1/blogs/${blog.id}/api-keys`);
    expect(list.body.data.map((k: { expires_at: string | null }) => k.expires_at)).toContain(expiresAt);
  });

  it('answers 401 saying it expired at POST /mcp too', async () => {
    const actor = await buildAccount(t);
    const expiresAt = later(HOUR);
    const { key } = await accountKey(actor, { expires_at: expiresAt });
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    };
    const send = () =>
      fetch(new URL('/mcp', t.baseUrl), {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify(init),
      });
    expect((await send()).status).toBe(200);
    t.clock.advance(HOUR);
    const res = await send();
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: 'unauthorized', message: expect.stringContaining(`this API key expired at ${expiresAt}`) });
  });

  it("does not count an expired account key as the account's last one: revoking the only working one is refused", async () => {
    const actor = await buildAccount(t);
    const expiring = await accountKey(actor, { expires_at: later(HOUR) });
    t.clock.advance(HOUR);
    const list = await actor.request('GET', '/v1/account/api-keys');
    const own = list.body.data.find((k: { id: string }) => k.id !== expiring.id);
    expectError(await actor.request('DELETE', `/v1/account/api-keys/${own.id}`), 409, 'conflict');
    // The expired one can always go.
    expect((await actor.request('DELETE', `/v1/account/api-keys/${expiring.id}`)).status).toBe(200);
  });
});

describe('scope wildcards', () => {
  it('posts:* reads and writes posts but cannot manage keys or blogs; it is answered as given', async () => {
    const blog = await buildBlog(t);
    const created = await accountKey(blog.actor, { scopes: ['posts:*'] });
    expect(created.scopes).toEqual(['posts:*']);
    const headers = { 'X-Blog-Id': blog.id };
    const post = await t.request('POST', '/v1/posts', { key: created.key, headers, body: { title: 'Wildcard', content: 'x' } });
    expect(post.status, post.text).toBe(201);
    expect((await t.request('GET', `/v1/posts/${post.body.slug}`, { key: created.key, headers })).status).toBe(200);
    expectError(await t.request('GET', `/v1/blogs/${blog.id}/api-keys`, { key: created.key }), 403, 'forbidden');
    expectError(await t.request('POST', '/v1/account/api-keys', { key: created.key, body: {} }), 403, 'forbidden');
    expectError(await t.request('PUT', `/v1/blogs/${blog.id}`, { key: created.key, body: { name: 'x' } }), 403, 'forbidden');
    const list = await blog.actor.request('GET', '/v1/account/api-keys');
    expect(list.body.data.find((k: { id: string }) => k.id === created.id).scopes).toEqual(['posts:*']);
  });

  it('accepts a wildcard for every resource with scopes, and refuses unknown ones', async () => {
    const actor = await buildAccount(t);
    const all = ['posts:*', 'blogs:*', 'keys:*', 'domains:*', 'search:*', 'media:*'];
    expect((await accountKey(actor, { scopes: all })).scopes).toEqual(all);
    for (const scopes of [['widgets:*'], ['posts:**'], ['*:*'], ['posts:']]) {
      expectFieldError(await actor.request('POST', '/v1/account/api-keys', { body: { scopes } }), 'scopes[0]');
    }
  });

  it('keys:* manages keys; a wildcard is granted only by a key holding it or *', async () => {
    const actor = await buildAccount(t);
    const keys = await accountKey(actor, { scopes: ['keys:*', 'posts:read', 'posts:write'] });
    const asKeys = (body: Record<string, unknown>) => t.request('POST', '/v1/account/api-keys', { key: keys.key, body });
    expect((await asKeys({ scopes: ['posts:read'] })).status).toBe(201);
    expect((await asKeys({ scopes: ['keys:manage'] })).status).toBe(201);
    expect((await asKeys({ scopes: ['keys:*'] })).status).toBe(201);
    // Holding posts:read and posts:write one by one is not posts:*, which grows with the resource.
    expectError(await asKeys({ scopes: ['posts:*'] }), 403, 'forbidden');
    expectError(await asKeys({ scopes: ['*'] }), 403, 'forbidden');
  });
});

describe('folio account create-key --expires', () => {
  it('--expires 30d makes a key expiring 30 days from now, which the server refuses once that has passed', async () => {
    const actor = await buildAccount(t);
    const started = Date.now();
    const run = await runCliCaptured(['account', 'create-key', actor.accountId, '--expires', '30d', '--json'], t.cliEnv);
    expect(run.code, run.stderr).toBe(0);
    const printed = JSON.parse(run.stdout) as { key_id: string; api_key: string; expires_at: string };
    const expires = Date.parse(printed.expires_at);
    expect(expires).toBeGreaterThanOrEqual(started + 30 * 24 * HOUR);
    expect(expires).toBeLessThanOrEqual(Date.now() + 30 * 24 * HOUR);
    const list = await actor.request('GET', '/v1/account/api-keys');
    expect(list.body.data.find((k: { id: string }) => k.id === printed.key_id).expires_at).toBe(printed.expires_at);
    t.clock.set(new Date(expires - 1));
    expect((await t.request('GET', '/v1/blogs', { key: printed.api_key })).status).toBe(200);
    t.clock.set(new Date(expires));
    expectExpired(await t.request('GET', '/v1/blogs', { key: printed.api_key }), printed.expires_at);
  });

  it('takes 1y and a date-time with a time zone, and refuses a past date, more than ten years and nonsense', async () => {
    const actor = await buildAccount(t);
    const env = t.cliEnv;
    const year = await runCliCaptured(['account', 'create-key', actor.accountId, '--expires', '1y', '--json'], env);
    expect(year.code, year.stderr).toBe(0);
    const inAYear = new Date();
    inAYear.setUTCFullYear(inAYear.getUTCFullYear() + 1);
    expect(Math.abs(Date.parse(JSON.parse(year.stdout).expires_at) - inAYear.getTime())).toBeLessThan(60_000);
    const at = new Date(Date.now() + 5 * 24 * HOUR);
    const at9 = `${new Date(at.getTime() + 9 * HOUR).toISOString().slice(0, 19)}+09:00`;
    const dated = await runCliCaptured(['account', 'create-key', actor.accountId, '--expires', at9, '--json'], env);
    expect(dated.code, dated.stderr).toBe(0);
    expect(JSON.parse(dated.stdout).expires_at).toBe(`${at.toISOString().slice(0, 19)}.000Z`);
    for (const [value, message] of [
      ['2020-01-01T00:00:00Z', /--expires must be in the future/],
      ['11y', /--expires must be at most ten years ahead/],
      ['2030-01-01', /--expires takes a number of days or years/],
      ['soon', /--expires takes a number of days or years/],
      ['0d', /--expires takes a number of days or years/],
    ] as const) {
      const run = await runCliCaptured(['account', 'create-key', actor.accountId, '--expires', value], env);
      expect(run.code, value).not.toBe(0);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(message);
    }
  });

  it('shows each key’s expiry in folio account keys', async () => {
    const actor = await buildAccount(t);
    const expiresAt = later(HOUR);
    await accountKey(actor, { expires_at: expiresAt });
    const run = await runCliCaptured(['account', 'keys', actor.accountId, '--json'], t.cliEnv);
    expect(run.code, run.stderr).toBe(0);
    const rows = JSON.parse(run.stdout) as { expires_at: string | null }[];
    expect(rows.map((row) => row.expires_at).sort()).toEqual([expiresAt, null]);
    const text = await runCliCaptured(['account', 'keys', actor.accountId], t.cliEnv);
    expect(text.stdout).toContain(`expires ${expiresAt}`);
  });
});
