import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../src/cli/runCli.js';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { actorFor, buildAccount, buildBlog, createKey, expectError, type Actor } from '../support/factories.js';

/**
 * `folio account keys | create-key | revoke-key`, run for real through runCli on the test
 * server's data dir: the CLI opens its own SQLite connection, as it does next to a running
 * server, and the server must see its changes on the very next request.
 */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());
afterEach(() => {
  vi.unstubAllEnvs();
});

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs one `folio …` command against the test app's data (TestApp.cliEnv), capturing its output. */
async function folio(...args: string[]): Promise<CliRun> {
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
    const code = await runCli(args);
    return { code, stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

/** A failure that names the problem on one stderr line, without usage text or stack. */
function expectOneLineFailure(run: CliRun, pattern: RegExp): void {
  expect(run.code, run.stderr).toBe(2);
  expect(run.stdout).toBe('');
  expect(run.stderr).toMatch(/^folio: [^\n]+\n$/);
  expect(run.stderr).toMatch(pattern);
  expect(run.stderr).not.toMatch(/Usage:|\n\s+at /);
}

async function accountKeyIds(actor: Actor): Promise<string[]> {
  const res = await actor.request('GET', '/v1/account/api-keys');
  expect(res.status, res.text).toBe(200);
  return res.body.data.map((k: { id: string }) => k.id);
}

interface ListedKey {
  id: string;
  name: string;
  key_prefix: string;
  scopes: string[];
  blog_id: string | null;
  blog_slug: string | null;
  last_used_at: string | null;
  created_at: string;
}

describe('folio account keys <account_id>', () => {
  it('lists the account’s account keys and blog-bound keys (with their blog), never a full key', async () => {
    const owner = await buildAccount(t);
    const [own] = await accountKeyIds(owner);
    const extra = (await owner.request('POST', '/v1/account/api-keys', { body: { name: 'CI', scopes: ['posts:read'] } })).body;
    const blog = await buildBlog(t, { actor: owner });
    const bound = await createKey(owner, blog.id, { name: 'bound' });
    const revoked = await createKey(owner, blog.id, { name: 'gone' });
    expect((await owner.request('DELETE', `/v1/blogs/${blog.id}/api-keys/${revoked.id}`)).status).toBe(200);
    const other = await buildAccount(t);

    const json = await folio('account', 'keys', owner.accountId, '--json');
    expect(json.code, json.stderr).toBe(0);
    const rows = JSON.parse(json.stdout) as ListedKey[];
    expect(rows.map((r) => r.id).sort()).toEqual([own, extra.id, bound.id].sort());
    expect(rows.find((r) => r.id === bound.id)).toMatchObject({
      name: 'bound',
      blog_id: blog.id,
      blog_slug: blog.slug,
      key_prefix: bound.prefix,
      scopes: ['*'],
    });
    expect(rows.find((r) => r.id === extra.id)).toMatchObject({ name: 'CI', blog_id: null, blog_slug: null, key_prefix: extra.prefix, scopes: ['posts:read'] });
    expect(rows.find((r) => r.id === own)).toMatchObject({ name: 'Account key', blog_id: null });
    for (const secret of [owner.key, extra.key, bound.key, other.key]) expect(json.stdout).not.toContain(secret);

    const text = await folio('account', 'keys', owner.accountId);
    expect(text.code).toBe(0);
    const lines = text.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines.find((l) => l.startsWith(bound.id))).toContain(`blog ${blog.slug}`);
    expect(lines.find((l) => l.startsWith(extra.id))).toMatch(/ account /);
    expect(text.stdout).not.toContain(revoked.id);
    for (const secret of [owner.key, extra.key, bound.key]) expect(text.stdout).not.toContain(secret);
  });

  it('names an unknown account on one stderr line and exits 2', async () => {
    expectOneLineFailure(await folio('account', 'keys', '00000000-0000-4000-8000-000000000000'), /no account with id 00000000-0000-4000-8000-000000000000/);
  });

  it('answers a missing account id with the usage and exit 2', async () => {
    const run = await folio('account', 'keys');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('folio account keys <account_id>');
  });
});

describe('folio account create-key <account_id>', () => {
  it('prints a full-scope account key once, which works over HTTP at once', async () => {
    const owner = await buildAccount(t);
    const run = await folio('account', 'create-key', owner.accountId, '--name', 'Recovery', '--json');
    expect(run.code, run.stderr).toBe(0);
    const made = JSON.parse(run.stdout) as { key_id: string; account_id: string; name: string; prefix: string; api_key: string };
    expect(made).toMatchObject({ account_id: owner.accountId, name: 'Recovery' });
    expect(made.api_key).toMatch(/^pk_live_[A-Za-z0-9_-]{32,}$/);
    expect(made.prefix).toBe(made.api_key.slice(0, 12));
    const res = await t.request('GET', '/v1/account/api-keys', { key: made.api_key });
    expect(res.status).toBe(200);
    expect(res.body.data.find((k: { id: string }) => k.id === made.key_id)).toMatchObject({ name: 'Recovery', scopes: ['*'], key_prefix: made.prefix });
  });

  it('names the key "Account key" by default and prints it in text mode', async () => {
    const owner = await buildAccount(t);
    const run = await folio('account', 'create-key', owner.accountId);
    expect(run.code, run.stderr).toBe(0);
    const secret = /API key \(shown once, store it now\): (pk_live_\S+)/.exec(run.stdout)?.[1];
    expect(secret).toBeDefined();
    const list = await t.request('GET', '/v1/account/api-keys', { key: secret! });
    expect(list.body.data.map((k: { name: string }) => k.name)).toEqual(['Account key', 'Account key']);
  });

  it('refuses an unknown account (one line, exit 2) and a name the API would refuse (exit 2)', async () => {
    expectOneLineFailure(await folio('account', 'create-key', '00000000-0000-4000-8000-000000000000'), /no account with id/);
    const owner = await buildAccount(t);
    for (const name of ['   ', 'n'.repeat(101)]) {
      const run = await folio('account', 'create-key', owner.accountId, '--name', name);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/--name must be 1-100 characters/);
    }
    expect(await accountKeyIds(owner)).toHaveLength(1);
  });
});

describe('folio account revoke-key <key_id>', () => {
  it('revokes an account key of any account: 401 on the very next request', async () => {
    const owner = await buildAccount(t);
    const spare = (await owner.request('POST', '/v1/account/api-keys', { body: { name: 'leaked' } })).body;
    expect((await t.request('GET', '/v1/blogs', { key: spare.key })).status).toBe(200);
    const run = await folio('account', 'revoke-key', spare.id);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(spare.id);
    expectError(await t.request('GET', '/v1/blogs', { key: spare.key }), 401, 'unauthorized');
    expect(await accountKeyIds(owner)).not.toContain(spare.id);
  });

  it('revokes a blog-bound key too: 401 on the very next request', async () => {
    const blog = await buildBlog(t);
    const bound = await createKey(blog.actor, blog.id);
    expect((await t.request('GET', '/v1/posts', { key: bound.key })).status).toBe(200);
    const run = await folio('account', 'revoke-key', bound.id);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`key of blog ${blog.id}`);
    expectError(await t.request('GET', '/v1/posts', { key: bound.key }), 401, 'unauthorized');
  });

  it('refuses the account’s last account key without --force, says what to do, and the key keeps working', async () => {
    const owner = await buildAccount(t);
    const [only] = await accountKeyIds(owner);
    const blog = await buildBlog(t, { actor: owner });
    await createKey(owner, blog.id);
    const run = await folio('account', 'revoke-key', only!);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`last account key of account ${owner.accountId}`);
    expect(run.stderr).toContain(`folio account create-key ${owner.accountId}`);
    expect(run.stderr).toContain('--force');
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect((await owner.request('GET', '/v1/blogs')).status).toBe(200);
  });

  it('revokes the last account key with --force, and create-key gets the account back in', async () => {
    const owner = await buildAccount(t);
    const [only] = await accountKeyIds(owner);
    const forced = await folio('account', 'revoke-key', only!, '--force');
    expect(forced.code, forced.stderr).toBe(0);
    expectError(await owner.request('GET', '/v1/blogs'), 401, 'unauthorized');
    const listed = await folio('account', 'keys', owner.accountId);
    expect(listed.stdout).toContain(`folio account create-key ${owner.accountId}`);
    const made = JSON.parse((await folio('account', 'create-key', owner.accountId, '--json')).stdout) as { api_key: string };
    const back = actorFor(t, made.api_key, owner.accountId, owner.plan);
    expect((await back.request('GET', '/v1/blogs')).status).toBe(200);
  });

  it('names an unknown or already revoked key on one stderr line and exits 2', async () => {
    expectOneLineFailure(
      await folio('account', 'revoke-key', '00000000-0000-4000-8000-00000000beef'),
      /no active key with id 00000000-0000-4000-8000-00000000beef/,
    );
    const owner = await buildAccount(t);
    const spare = (await owner.request('POST', '/v1/account/api-keys', { body: {} })).body;
    expect((await folio('account', 'revoke-key', spare.id)).code).toBe(0);
    expectOneLineFailure(await folio('account', 'revoke-key', spare.id), /no active key with id/);
  });
});
