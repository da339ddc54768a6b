import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../src/cli/runCli.js';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { startReceiver } from '../support/webhookReceiver.js';
import { buildAccount, buildBlog, buildPost, createKey, expectError, expectFieldError, type BuiltBlog } from '../support/factories.js';

/** DELETE /v1/account and `folio account delete`: keys refused, blogs gone, sites removed in the background. */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ env: { FOLIO_WEBHOOKS_ALLOW_PRIVATE: 'true' } });
});
afterAll(async () => t.close());
afterEach(() => {
  vi.unstubAllEnvs();
});

async function accountKey(blog: BuiltBlog): Promise<string> {
  const res = await blog.actor.request('POST', '/v1/account/api-keys', { body: { name: 'Second' } });
  expect(res.status, res.text).toBe(201);
  return res.body.key;
}

async function stillThere(blog: BuiltBlog): Promise<void> {
  const res = await blog.actor.request('GET', `/v1/blogs/${blog.id}`);
  expect(res.status, res.text).toBe(200);
}

describe('DELETE /v1/account', () => {
  it('refuses a missing, wrong or other account id with 400 naming confirm, and deletes nothing', async () => {
    const blog = await buildBlog(t);
    const other = await buildAccount(t);
    expectFieldError(await blog.actor.request('DELETE', '/v1/account', { body: {} }), 'confirm');
    expectFieldError(await blog.actor.request('DELETE', '/v1/account', { body: { confirm: 'nope' } }), 'confirm');
    expectFieldError(await blog.actor.request('DELETE', '/v1/account', { body: { confirm: other.accountId } }), 'confirm');
    await stillThere(blog);
    expect((await other.request('GET', '/v1/account')).status).toBe(200);
  });

  it('needs a key with the * scope', async () => {
    const blog = await buildBlog(t);
    const narrow = await createKey(blog.actor, blog.id, { scopes: ['keys:manage', 'blogs:read'] });
    expectError(await t.request('DELETE', '/v1/account', { key: narrow.key, body: { confirm: blog.actor.accountId } }), 403, 'forbidden');
    await stillThere(blog);
  });

  it('answers {deleted: true}: keys 401, blogs 404, sites, search indexes and discovery entries removed, webhooks silent; another account untouched', async () => {
    const blog = await buildBlog(t);
    const second = await buildBlog(t, { actor: blog.actor });
    const bystander = await buildBlog(t);
    // All three are listed by GET /v1/discover (issue #29 part 3), which must drop the deleted account's at once.
    for (const listed of [blog, second, bystander]) {
      expect((await listed.actor.request('PUT', `/v1/blogs/${listed.id}`, { body: { discoverable: true } })).status).toBe(200);
    }
    const discovered = async () =>
      ((await t.request('GET', '/v1/discover?q=wombatzq', { key: null })).body.data as { blog: { slug: string } }[]).map((hit) => hit.blog.slug).sort();
    const bystanderKey = await createKey(bystander.actor, bystander.id);
    await buildPost(bystander, { title: 'Kept wombatzq', status: 'published' });
    const receiver = await startReceiver();
    try {
      const hook = await blog.actor.request('POST', `/v1/blogs/${blog.id}/webhooks`, { body: { url: receiver.url, events: ['post.published'] } });
      expect(hook.status, hook.text).toBe(201);
      receiver.setSecret(hook.body.secret);
      await buildPost(blog, { title: 'Gone soon wombatzq', status: 'published' });
      await buildPost(second, { title: 'Also gone wombatzq', status: 'published' });
      await receiver.waitFor(1);
      await t.folio.idle();
      expect((await t.folio.store.list(`${blog.slug}/`)).length).toBeGreaterThan(0);
      expect((await t.folio.store.list(`${blog.slug}/_search/`)).length).toBeGreaterThan(0);
      const bound = await createKey(blog.actor, blog.id);
      const extra = await accountKey(blog);
      expect(await discovered()).toEqual([blog.slug, second.slug, bystander.slug].sort());

      const res = await blog.actor.request('DELETE', '/v1/account', { body: { confirm: blog.actor.accountId } });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({ deleted: true });
      // The very next request, before the background jobs that remove the sites and entries.
      expect(await discovered()).toEqual([bystander.slug]);

      for (const key of [blog.actor.key, bound.key, extra]) expectError(await t.request('GET', `/v1/blogs/${blog.id}`, { key }), 401, 'unauthorized');
      expect(await t.folio.sql.get('SELECT COUNT(*) AS n FROM blogs WHERE account_id = ?', [blog.actor.accountId])).toEqual({ n: 0 });
      expectError(await bystander.actor.request('GET', `/v1/blogs/${blog.id}`), 404, 'not_found');
      expect(await t.folio.sql.get('SELECT COUNT(*) AS n FROM webhooks WHERE blog_id = ?', [blog.id])).toEqual({ n: 0 });

      await t.folio.idle();
      for (const gone of [blog, second]) {
        expect(await t.folio.store.list(`${gone.slug}/`)).toEqual([]);
        expect(await t.folio.store.list(`${gone.slug}/_search/`)).toEqual([]);
        expect(await t.folio.sql.get('SELECT COUNT(*) AS n FROM discovery_posts WHERE blog_id = ?', [gone.id])).toEqual({ n: 0 });
      }
      expect(await discovered()).toEqual([bystander.slug]);
      // Nothing more for the deleted blog's webhook: only the delivery from before.
      expect(receiver.received).toHaveLength(1);

      await stillThere(bystander);
      expect((await t.request('GET', '/v1/posts', { key: bystanderKey.key })).status).toBe(200);
      expect((await t.folio.store.list(`${bystander.slug}/`)).length).toBeGreaterThan(0);
      // The slugs are free again once the sites are gone.
      const reuse = await buildBlog(t, { actor: bystander.actor, slug: blog.slug });
      expect(reuse.slug).toBe(blog.slug);
    } finally {
      await receiver.close();
    }
  });
});

describe('folio account delete', () => {
  async function folio(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    for (const [name, value] of Object.entries(t.cliEnv)) vi.stubEnv(name, value);
    let stdout = '';
    let stderr = '';
    const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      stdout += String(chunk);
      return true;
    });
    const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      stderr += String(chunk);
      return true;
    });
    try {
      return { code: await runCli(args), stdout, stderr };
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
  }

  it('deletes the account from the CLI; the server refuses its keys on the next request', async () => {
    const blog = await buildBlog(t);
    const bystander = await buildBlog(t);
    const run = await folio('account', 'delete', blog.actor.accountId);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`Deleted account ${blog.actor.accountId}`);
    expectError(await blog.actor.request('GET', `/v1/blogs/${blog.id}`), 401, 'unauthorized');
    expectError(await bystander.actor.request('GET', `/v1/blogs/${blog.id}`), 404, 'not_found');
    await stillThere(bystander);
    const again = await folio('account', 'delete', blog.actor.accountId);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/no account with id/);
  });
});
