/**
 * The repositories of accounts, their blogs, keys and custom domains on a real PostgreSQL: the
 * texts they choose by `dialect` included.
 */
import { describe, expect, it } from 'vitest';
import { AccountsRepo } from '../../src/db/accountsRepo.js';
import { ApiKeysRepo, type NewApiKey } from '../../src/db/apiKeysRepo.js';
import { BlogsRepo } from '../../src/db/blogsRepo.js';
import { DomainsRepo } from '../../src/db/domainsRepo.js';
import type { Blog } from '../../src/domain/blog.js';
import { LATER, T0, usePostgres } from '../support/postgresRepos.js';

const { seeded } = usePostgres();

const blog = (id: string, slug: string, createdAt: string, accountId = 'a1'): Blog => ({
  id,
  accountId,
  slug,
  name: slug,
  description: '',
  themeConfig: { customCss: 'a{}' },
  discoverable: false,
  createdAt,
  updatedAt: createdAt,
});

describe('accounts on PostgreSQL', () => {
  it('are written, listed, given plans and passwords, found by email without case, and deleted', async () => {
    const sql = await seeded();
    const accounts = new AccountsRepo(sql);
    await accounts.insert({ id: 'a3', email: 'B@Example.com', plan: 'free', createdAt: LATER, updatedAt: LATER });
    await sql.transaction((tx) => accounts.in(tx).insert({ id: 'a2', email: 'b@example.COM', plan: 'free', createdAt: LATER, updatedAt: LATER }));
    expect((await accounts.list()).map((a) => a.id)).toEqual(['a1', 'a2', 'a3']);
    expect(await accounts.count()).toBe(3);
    expect(await accounts.findById('a2')).toEqual({ id: 'a2', email: 'b@example.COM', plan: 'free', createdAt: LATER, updatedAt: LATER });
    expect(await accounts.findById('nope')).toBeNull();
    expect(await accounts.setPlan('a2', 'scale', '2026-03-25T00:00:00.000Z')).toBe(true);
    expect(await accounts.setPlan('nope', 'scale', T0)).toBe(false);
    expect(await accounts.findById('a2')).toMatchObject({ plan: 'scale', updatedAt: '2026-03-25T00:00:00.000Z' });
    expect(await accounts.passwordHash('a2')).toBeNull();
    expect(await accounts.setPassword('a2', 'scrypt$1', null, LATER)).toBe(true);
    expect(await accounts.passwordHash('a2')).toBe('scrypt$1');
    expect(await accounts.findByEmailWithPassword('B@EXAMPLE.com')).toMatchObject({ account: { id: 'a2', email: 'b@example.COM' }, passwordHash: 'scrypt$1' });
    expect(await accounts.emailTakenForSignIn('b@example.com', 'a3')).toBe(true);
    expect(await accounts.emailTakenForSignIn('b@example.com', 'a2')).toBe(false);
    // A second account signing in with the same email: the email signs no one in.
    await accounts.setPassword('a3', 'scrypt$2', 'b@EXAMPLE.com', LATER);
    expect(await accounts.findByEmailWithPassword('b@example.com')).toBeNull();
    expect(await accounts.findById('a3')).toMatchObject({ email: 'b@EXAMPLE.com' });
    expect(await accounts.delete('a3')).toBe(true);
    expect(await accounts.delete('a3')).toBe(false);
  });
});

describe('blogs on PostgreSQL', () => {
  it("lists an account's blogs newest first, those of the same millisecond newest inserted first", async () => {
    const sql = await seeded();
    const blogs = new BlogsRepo(sql);
    // Ids against insertion order: a tie broken by id would show.
    await blogs.insert(blog('bz', 'zed', LATER));
    await sql.transaction((tx) => blogs.in(tx).insert(blog('ba', 'alpha', LATER)));
    await sql.run("INSERT INTO accounts (id, plan, created_at, updated_at) VALUES ('a2', 'free', ?, ?)", [T0, T0]);
    await blogs.insert(blog('bo', 'other', T0, 'a2'));
    expect((await blogs.listByAccount('a1')).map((b) => b.id)).toEqual(['ba', 'bz', 'b1']);
    expect(await sql.transaction(async (tx) => (await blogs.in(tx).listByAccount('a1')).map((b) => b.id))).toEqual(['ba', 'bz', 'b1']);
    expect((await blogs.listAll()).map((b) => b.id)).toEqual(['b1', 'bo', 'ba', 'bz']);
    expect(await blogs.countByAccount('a1')).toBe(3);
    await expect(blogs.insert(blog('b9', 'zed', LATER))).rejects.toMatchObject({ code: '23505' });
  });

  it('are found by id, slug, owner and active domain; updated; their slugs retired and released; deleted', async () => {
    const sql = await seeded();
    const blogs = new BlogsRepo(sql);
    await blogs.insert(blog('b2', 'two', T0));
    const found = { ...blog('b2', 'two', T0), customDomain: null, domainActive: false };
    expect(await blogs.findById('b2')).toEqual(found);
    expect(await blogs.findBySlug('two')).toEqual(found);
    expect(await blogs.findOwned('a1', 'b2')).toEqual(found);
    expect(await blogs.findOwned('a2', 'b2')).toBeNull();
    expect([await blogs.hasSlug('two'), await blogs.hasSlug('three')]).toEqual([true, false]);
    const domains = new DomainsRepo(sql);
    await domains.insert({ blogId: 'b2', hostname: 'two.example', challengeToken: 't', createdAt: T0, expiresAt: LATER });
    expect(await blogs.findByActiveDomain('two.example')).toBeNull();
    await domains.activate({ blogId: 'b2', hostname: 'two.example', challengeToken: 't', checkedAt: LATER });
    expect(await blogs.findByActiveDomain('two.example')).toEqual({ ...found, customDomain: 'two.example', domainActive: true });
    await sql.transaction((tx) => blogs.in(tx).update({ id: 'b2', name: 'Two', description: 'd', themeConfig: {}, discoverable: true, updatedAt: LATER }));
    expect(await blogs.findById('b2')).toMatchObject({ name: 'Two', description: 'd', themeConfig: {}, discoverable: true, updatedAt: LATER });
    await blogs.retireSlug('two', 'old', T0);
    await blogs.retireSlug('two', 'b2', LATER);
    await blogs.releaseSlug('two', 'old');
    expect(await blogs.isSlugRetired('two')).toBe(true);
    await blogs.releaseSlug('two', 'b2');
    expect(await blogs.isSlugRetired('two')).toBe(false);
    await blogs.delete('b2');
    expect(await blogs.findById('b2')).toBeNull();
    expect(await domains.findByBlog('b2')).toBeNull();
  });
});

describe('API keys on PostgreSQL', () => {
  it('are found by hash with their account, listed account keys first, touched, and revoked', async () => {
    const sql = await seeded();
    await new BlogsRepo(sql).insert(blog('b2', 'alpha', T0));
    const keys = new ApiKeysRepo(sql);
    const key = (id: string, blogId: string | null, createdAt: string, expiresAt: string | null = null): NewApiKey => ({
      id,
      accountId: 'a1',
      blogId,
      name: id,
      keyHash: `hash-${id}`,
      keyPrefix: id,
      scopes: ['posts:write'],
      lastUsedAt: null,
      createdAt,
      expiresAt,
    });
    await keys.insert(key('k1', null, T0));
    await sql.transaction((tx) => keys.in(tx).insert(key('k2', null, LATER)));
    await keys.insert(key('kx', null, LATER, T0));
    await keys.insert(key('kb1', 'b1', T0));
    await keys.insert(key('kb2', 'b2', T0));
    const { keyHash: _, ...k1 } = key('k1', null, T0);
    expect(await keys.findActiveByHash('hash-k1')).toEqual({
      key: k1,
      account: { id: 'a1', email: 'a@example.com', plan: 'creator', createdAt: T0, updatedAt: T0 },
    });
    expect((await keys.listActiveForAccount('a1')).map((e) => [e.key.id, e.blogSlug])).toEqual([
      ['k2', null],
      ['kx', null],
      ['k1', null],
      ['kb2', 'alpha'],
      ['kb1', 'one'],
    ]);
    expect((await keys.listActiveAccountKeys('a1')).map((k) => k.id)).toEqual(['k2', 'kx', 'k1']);
    expect((await keys.listActiveForBlog('b1')).map((k) => k.id)).toEqual(['kb1']);
    await keys.touch('kb1', LATER);
    expect((await keys.listActiveForBlog('b1'))[0]!.lastUsedAt).toBe(LATER);
    expect(await keys.revoke('b2', 'kb1', LATER)).toBe(false);
    expect(await keys.revoke('b1', 'kb1', LATER)).toBe(true);
    expect(await keys.findActiveByHash('hash-kb1')).toBeNull();
    const options = { accountKeysOnly: true, keepLastAccountKey: true };
    expect(await keys.revokeChecked('kb2', LATER, options)).toEqual({ outcome: 'not_found' });
    expect(await keys.revokeChecked('k1', LATER, { ...options, accountId: 'a2' })).toEqual({ outcome: 'not_found' });
    expect(await keys.revokeChecked('k1', LATER, options)).toMatchObject({ outcome: 'revoked', key: { id: 'k1' } });
    // kx has expired: k2 is the last account key that works.
    expect(await sql.transaction((tx) => keys.in(tx).revokeChecked('k2', LATER, options))).toMatchObject({ outcome: 'last_account_key' });
    expect(await keys.revokeChecked('k2', LATER, { ...options, keepLastAccountKey: false })).toMatchObject({ outcome: 'revoked' });
    expect(await keys.revokeChecked('k2', LATER, options)).toEqual({ outcome: 'not_found' });
  });
});

describe('custom domains on PostgreSQL', () => {
  it('are registered, checked, activated once per hostname, marked lost, expired and deleted', async () => {
    const sql = await seeded();
    await new BlogsRepo(sql).insert(blog('b2', 'two', T0));
    const domains = new DomainsRepo(sql);
    const one = { blogId: 'b1', hostname: 'x.example', challengeToken: 't1' };
    const two = { blogId: 'b2', hostname: 'x.example', challengeToken: 't2' };
    await domains.insert({ ...one, createdAt: T0, expiresAt: LATER });
    await sql.transaction((tx) => domains.in(tx).insert({ ...two, createdAt: T0, expiresAt: LATER }));
    expect(await domains.findByBlog('b1')).toEqual({
      ...one,
      status: 'pending_verification',
      createdAt: T0,
      expiresAt: LATER,
      verifiedAt: null,
      lastCheckedAt: null,
      lastError: null,
    });
    expect((await domains.listPendingForChecks(10)).map((d) => d.blogId)).toEqual(['b1', 'b2']);
    await domains.recordCheck({ ...one, checkedAt: T0, lastError: 'no TXT record' });
    expect((await domains.listPendingForChecks(10)).map((d) => [d.blogId, d.lastError])).toEqual([
      ['b2', null],
      ['b1', 'no TXT record'],
    ]);
    expect(await domains.activate({ ...one, challengeToken: 'stale', checkedAt: T0 })).toBe(false);
    expect(await domains.activate({ ...one, checkedAt: T0 })).toBe(true);
    expect(await domains.findActiveByHostname('x.example')).toMatchObject({ blogId: 'b1', status: 'active', expiresAt: null, verifiedAt: T0, lastError: null });
    await expect(domains.activate({ ...two, checkedAt: T0 })).rejects.toMatchObject({ code: '23505' });
    // A unique violation caught inside a transaction leaves it aborted on PostgreSQL (SQLite
    // goes on): what services/domains.ts's check does after activate() fails can never run.
    const caught = sql.transaction(async (tx) => {
      await domains
        .in(tx)
        .activate({ ...two, checkedAt: T0 })
        .catch(() => undefined);
      await domains.in(tx).recordCheck({ ...two, checkedAt: T0, lastError: 'taken' });
    });
    await expect(caught).rejects.toMatchObject({ code: '25P02' });
    await domains.markLost('x.example', 'b1', 'taken by another blog');
    expect(await domains.findByBlog('b2')).toMatchObject({ status: 'pending_verification', lastError: 'taken by another blog' });
    expect((await domains.listActive()).map((d) => d.blogId)).toEqual(['b1']);
    expect(await domains.deleteRegistration({ ...two, challengeToken: 'other' })).toBe(false);
    expect(await domains.deleteExpired(T0)).toBe(0);
    expect(await domains.deleteExpired(LATER)).toBe(1);
    expect(await domains.delete('b1')).toBe(true);
    expect(await domains.delete('b1')).toBe(false);
    await domains.insert({ ...two, createdAt: T0, expiresAt: LATER });
    expect(await domains.deleteRegistration(two)).toBe(true);
  });
});
