import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FsSiteStore } from '../../src/storage/fsSiteStore.js';
import type { StoredObject } from '../../src/storage/siteStore.js';
import { FaultyStore } from '../support/faultyStore.js';
import { freshDataEnv, startTestApp, type TestApp } from '../support/testApp.js';
import { buildBlog, expectError, type BuiltBlog } from '../support/factories.js';

/**
 * Hostile custom domains: a pending registration reserves nothing, so nobody can hold a hostname
 * hostage; the first registration to prove control (CNAME + TXT token) gets it; unverified
 * registrations lapse after seven days; and only the active blog's routing entry ever exists.
 */

const WEEK = 7 * 24 * 3600 * 1000;
const TAKEN = 'the hostname was verified by another blog first; this registration cannot become active while that blog has it';

let hostSeq = 0;
const hostname = (): string => `contested${(hostSeq += 1)}.example.com`;

const register = (blog: BuiltBlog, host: string) => blog.actor.request('POST', `/v1/blogs/${blog.id}/domain`, { body: { hostname: host } });
const getDomain = (blog: BuiltBlog) => blog.actor.request('GET', `/v1/blogs/${blog.id}/domain`);
const entry = async (t: TestApp, host: string): Promise<string | null> => (await t.folio.store.get(`_domains/${host}`))?.body.toString('utf8') ?? null;

describe('competing registrations of one hostname', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t.close());

  it('a pending registration by another account does not block the owner: both are 201 pending, the owner verifies first and wins', async () => {
    const squatter = await buildBlog(t, { plan: 'starter' });
    const owner = await buildBlog(t, { plan: 'starter' });
    const host = hostname();
    const squat = await register(squatter, host);
    expect(squat.status).toBe(201);
    const mine = await register(owner, host);
    expect(mine.status).toBe(201);
    expect(mine.body.status).toBe('pending_verification');
    expect(mine.body.verification.value).not.toBe(squat.body.verification.value);

    // The owner controls the DNS and puts in the records its own registration asks for.
    t.satisfyDomainChallenge(mine.body);
    expect((await getDomain(squatter)).body).toMatchObject({ status: 'pending_verification' });
    expect((await getDomain(owner)).body).toEqual({ hostname: host, status: 'active', cname_target: `${owner.slug}.localhost` });
    await t.folio.idle();
    expect(await entry(t, host)).toBe(owner.slug);

    // The squatter learns why at once, without a check of its own.
    expect((await t.folio.repos.domains.findByBlog(squatter.id))?.lastError).toBe(TAKEN);
    expect((await getDomain(squatter)).body).toMatchObject({ status: 'pending_verification', last_error: TAKEN });

    // Even DNS pointing at the squatter, with its token, cannot make it active while the owner has the hostname.
    t.satisfyDomainChallenge(squat.body);
    expect(await t.folio.domains.checkPending()).toBe(0);
    expect((await getDomain(squatter)).body).toMatchObject({ status: 'pending_verification', last_error: TAKEN });
    expect((await getDomain(owner)).body.status).toBe('active');
    await t.folio.idle();
    expect(await entry(t, host)).toBe(owner.slug);
    expect((await squatter.actor.request('GET', `/v1/blogs/${squatter.id}`)).body.url).toBe(`http://${squatter.slug}.localhost:3000/`);

    // Once active, the hostname is refused to everyone else.
    const late = await buildBlog(t, { plan: 'starter' });
    expectError(await register(late, host), 409, 'conflict');
  });

  it('a losing registration may still verify after the winner removes the hostname, before it expires', async () => {
    const first = await buildBlog(t);
    const second = await buildBlog(t);
    const host = hostname();
    const a = await register(first, host);
    const b = await register(second, host);
    t.satisfyDomainChallenge(a.body);
    expect((await getDomain(first)).body.status).toBe('active');
    expect((await getDomain(second)).body.last_error).toBe(TAKEN);
    expect((await first.actor.request('DELETE', `/v1/blogs/${first.id}/domain`)).status).toBe(200);
    t.satisfyDomainChallenge(b.body);
    expect((await getDomain(second)).body.status).toBe('active');
    await t.folio.idle();
    expect(await entry(t, host)).toBe(second.slug);
  });
});

describe('registrations checked at the same moment', () => {
  it('with DNS that satisfies all of them, exactly one becomes active and the others lose', async () => {
    // Every check's CNAME lookup is held until all three are waiting, so all three get past
    // the "is the hostname taken?" look before any of them writes.
    const cnames = new Map<string, string[]>();
    const txts = new Map<string, string[][]>();
    let waiting: (() => void)[] = [];
    const barrier = (): Promise<void> =>
      new Promise((resolve) => {
        waiting.push(resolve);
        if (waiting.length === 3) {
          for (const release of waiting) release();
          waiting = [];
        }
      });
    const t = await startTestApp({
      resolver: {
        resolveCname: async (name) => {
          await barrier();
          return cnames.get(name) ?? [];
        },
        resolveTxt: async (name) => txts.get(name) ?? [],
      },
    });
    try {
      const blogs = [await buildBlog(t), await buildBlog(t), await buildBlog(t)];
      const host = hostname();
      const regs = await Promise.all(blogs.map((blog) => register(blog, host)));
      // Not a DNS anyone could publish (one name, several CNAMEs), but it lets every check pass its lookups.
      cnames.set(
        host,
        blogs.map((blog) => `${blog.slug}.localhost`),
      );
      txts.set(
        `_folio-challenge.${host}`,
        regs.map((reg) => [reg.body.verification.value]),
      );
      const answers = await Promise.all(blogs.map((blog) => getDomain(blog)));
      expect(answers.map((res) => res.status)).toEqual([200, 200, 200]);
      expect(answers.filter((res) => res.body.status === 'active')).toHaveLength(1);
      for (const res of answers.filter((r) => r.body.status !== 'active')) expect(res.body.last_error).toBe(TAKEN);
      const rows = await t.folio.sql.all(`SELECT blog_id FROM domains WHERE hostname = ? AND status = 'active'`, [host]);
      expect(rows).toHaveLength(1);
    } finally {
      await t.close();
    }
  });
});

describe('expiry of pending registrations', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t.close());

  it('still verifies just before its expiry', async () => {
    const blog = await buildBlog(t, { plan: 'starter' });
    const host = hostname();
    const reg = await register(blog, host);
    t.clock.advance(WEEK - 1);
    t.satisfyDomainChallenge(reg.body);
    expect((await getDomain(blog)).body.status).toBe('active');
  });

  it('lapses after seven days: the background check removes it and never activates it, even with DNS right', async () => {
    const blog = await buildBlog(t, { plan: 'starter' });
    const host = hostname();
    const reg = await register(blog, host);
    expect(Date.parse(reg.body.expires_at)).toBe(t.clock.now().getTime() + WEEK);
    t.clock.advance(WEEK);
    t.satisfyDomainChallenge(reg.body);
    const jobs = t.handledJobs.length;
    expect(await t.folio.domains.checkPending()).toBe(0);
    expect(await t.folio.repos.domains.findByBlog(blog.id)).toBeNull();
    expectError(await getDomain(blog), 404, 'not_found');
    expect((await blog.actor.request('GET', `/v1/blogs/${blog.id}`)).body.custom_domain).toBeNull();
    await t.folio.idle();
    expect(t.handledJobs.length).toBe(jobs);
    expect(await entry(t, host)).toBeNull();
  });

  it('GET on a lapsed registration (before the background check) removes it and answers 404 saying it expired', async () => {
    const blog = await buildBlog(t, { plan: 'starter' });
    const host = hostname();
    const reg = await register(blog, host);
    t.clock.advance(WEEK + 1);
    t.satisfyDomainChallenge(reg.body);
    const res = await getDomain(blog);
    expectError(res, 404, 'not_found');
    expect(res.body.message).toContain(`the registration of "${host}" expired at ${reg.body.expires_at}`);
    expect(await t.folio.repos.domains.findByBlog(blog.id)).toBeNull();
    expectError(await getDomain(blog), 404, 'not_found');
  });

  it('a lapsed registration does not stop its blog from registering again, with a new token and a new week', async () => {
    const blog = await buildBlog(t, { plan: 'starter' });
    const host = hostname();
    const old = await register(blog, host);
    expectError(await register(blog, hostname()), 409, 'conflict');
    t.clock.advance(WEEK);
    const again = await register(blog, host);
    expect(again.status).toBe(201);
    expect(again.body.verification.value).not.toBe(old.body.verification.value);
    expect(Date.parse(again.body.expires_at)).toBe(t.clock.now().getTime() + WEEK);
    // The old token proves nothing for the new registration.
    t.satisfyDomainChallenge(old.body);
    expect((await getDomain(blog)).body.status).toBe('pending_verification');
    t.satisfyDomainChallenge(again.body);
    expect((await getDomain(blog)).body.status).toBe('active');
  });

  it('an active domain never expires', async () => {
    const blog = await buildBlog(t, { plan: 'starter' });
    const host = hostname();
    t.satisfyDomainChallenge((await register(blog, host)).body);
    expect((await getDomain(blog)).body.status).toBe('active');
    t.clock.advance(10 * WEEK);
    t.dns.delete(host);
    await t.folio.domains.checkPending();
    expect((await getDomain(blog)).body).toEqual({ hostname: host, status: 'active', cname_target: `${blog.slug}.localhost` });
  });
});

/** A real folder store whose next read of one key can be made to wait for something else first. */
class HookedStore extends FaultyStore {
  beforeReturn: { key: string; run: () => Promise<void> } | null = null;

  override async get(key: string): Promise<StoredObject | null> {
    const found = await super.get(key);
    const hook = this.beforeReturn;
    if (hook && hook.key === key) {
      this.beforeReturn = null;
      await hook.run();
    }
    return found;
  }
}

describe('the _domains/<hostname> routing entry with competing registrations', () => {
  const apps: TestApp[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    while (apps.length) await apps.pop()!.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  async function start(): Promise<{ t: TestApp; store: HookedStore }> {
    const dataDir = mkdtempSync(join(tmpdir(), 'folio-domains-'));
    dirs.push(dataDir);
    const store = new HookedStore(new FsSiteStore({ root: join(dataDir, 'public') }));
    const t = await startTestApp({ dataDir, env: await freshDataEnv(dataDir), store });
    apps.push(t);
    return { t, store };
  }

  /** first verifies the hostname; second has it pending with DNS not yet pointing at it. */
  async function contested(t: TestApp, host: string) {
    const first = await buildBlog(t);
    const second = await buildBlog(t);
    const a = await register(first, host);
    const b = await register(second, host);
    t.satisfyDomainChallenge(a.body);
    expect((await getDomain(first)).body.status).toBe('active');
    await t.folio.idle();
    expect(await entry(t, host)).toBe(first.slug);
    return { first, second, secondRegistration: b.body };
  }

  it('a late retry of the old holder’s domain_removed job does not delete the new holder’s entry', async () => {
    const { t, store } = await start();
    const host = hostname();
    const { first, second, secondRegistration } = await contested(t, host);
    // The store is down when first removes its domain: the re-render fails and waits for a retry.
    store.down = true;
    expect((await first.actor.request('DELETE', `/v1/blogs/${first.id}/domain`)).status).toBe(200);
    await t.folio.idle();
    expect((await first.actor.request('GET', `/v1/blogs/${first.id}/publishing`)).body.failed).toBe(1);
    store.down = false;
    // Meanwhile second verifies and its own job writes the entry.
    t.satisfyDomainChallenge(secondRegistration);
    expect((await getDomain(second)).body.status).toBe('active');
    await t.folio.idle();
    expect(await entry(t, host)).toBe(second.slug);
    // Now first's job is retried.
    t.clock.advance(60_000);
    await t.folio.runner.runDue();
    await t.folio.idle();
    expect((await first.actor.request('GET', `/v1/blogs/${first.id}/publishing`)).body.pending).toBe(0);
    expect(await entry(t, host)).toBe(second.slug);
  });

  it('the new holder’s entry survives when it is written between the old holder’s read and delete of the entry', async () => {
    const { t, store } = await start();
    const host = hostname();
    const { first, second, secondRegistration } = await contested(t, host);
    store.beforeReturn = {
      key: `_domains/${host}`,
      // After first's job has read the entry (still naming first), second verifies and writes its own.
      run: async () => {
        t.satisfyDomainChallenge(secondRegistration);
        expect((await getDomain(second)).body.status).toBe('active');
        for (let i = 0; i < 500 && (await entry(t, host)) !== second.slug; i += 1) await new Promise((r) => setTimeout(r, 10));
        expect(await entry(t, host)).toBe(second.slug);
      },
    };
    expect((await first.actor.request('DELETE', `/v1/blogs/${first.id}/domain`)).status).toBe(200);
    await t.folio.idle();
    expect(store.beforeReturn).toBeNull();
    expect(await entry(t, host)).toBe(second.slug);
  });

  it('deleting a blog whose registration lost leaves the holder’s entry alone', async () => {
    const { t } = await start();
    const host = hostname();
    const { first, second } = await contested(t, host);
    expect((await second.actor.request('DELETE', `/v1/blogs/${second.id}`)).status).toBe(200);
    await t.folio.idle();
    expect(await entry(t, host)).toBe(first.slug);
    expect((await getDomain(first)).body.status).toBe('active');
  });

  it('removing the active domain with no other holder deletes the entry', async () => {
    const { t } = await start();
    const host = hostname();
    const { first } = await contested(t, host);
    expect((await first.actor.request('DELETE', `/v1/blogs/${first.id}/domain`)).status).toBe(200);
    await t.folio.idle();
    expect(await entry(t, host)).toBeNull();
  });
});
