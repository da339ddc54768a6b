import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startReceiver, type Receiver } from '../support/webhookReceiver.js';
import { freshDataEnv, startTestApp, type TestApp } from '../support/testApp.js';
import { buildAccount, buildBlog, buildPost, expectError, expectFieldError, postPath, type BuiltBlog } from '../support/factories.js';
import { testTempDir } from '../support/tempDir.js';
import { claimLeaseMs, DELIVERY_LIMITS } from '../../src/webhooks/dispatcher.js';
import { spawnServer } from '../support/spawnedServer.js';
import { freshDatabaseEnv } from '../support/freshDatabase.js';

const ALL = ['post.published', 'post.updated', 'post.unpublished', 'post.deleted', 'post.scheduled', 'blog.updated', 'domain.activated'];

async function subscribe(blog: BuiltBlog, receiver: Receiver, events = ALL) {
  const res = await blog.actor.request('POST', `/v1/blogs/${blog.id}/webhooks`, { body: { url: receiver.url, events } });
  expect(res.status, res.text).toBe(201);
  receiver.setSecret(res.body.secret);
  return res.body as { id: string; secret: string };
}

describe('webhooks, delivered to a loopback receiver (FOLIO_WEBHOOKS_ALLOW_PRIVATE=true)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { FOLIO_WEBHOOKS_ALLOW_PRIVATE: 'true' } });
  });
  afterAll(async () => t.close());

  it('creates, lists and deletes webhooks; the secret is shown only at creation', async () => {
    const blog = await buildBlog(t);
    const receiver = await startReceiver();
    try {
      const created = await subscribe(blog, receiver, ['post.published']);
      expect(created).toMatchObject({ url: receiver.url, events: ['post.published'], secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/=]{32}$/) });
      const list = await blog.actor.request('GET', `/v1/blogs/${blog.id}/webhooks`);
      expect(list.body.data).toEqual([{ id: created.id, url: receiver.url, events: ['post.published'], created_at: expect.any(String) }]);
      expectFieldError(
        await blog.actor.request('POST', `/v1/blogs/${blog.id}/webhooks`, { body: { url: receiver.url, events: ['post.exploded'] } }),
        'events[0]',
      );
      // Found by the route fuzzer: objects in `events` once reached ajv's deep comparison (500).
      expectFieldError(
        await blog.actor.request('POST', `/v1/blogs/${blog.id}/webhooks`, {
          body: { url: receiver.url, events: [{ toString: 'x', valueOf: null }, { valueOf: 1 }] },
        }),
        'events[0]',
      );
      expect((await blog.actor.request('DELETE', `/v1/blogs/${blog.id}/webhooks/${created.id}`)).status).toBe(200);
      expect((await blog.actor.request('GET', `/v1/blogs/${blog.id}/webhooks`)).body.data).toEqual([]);
      expectError(await blog.actor.request('GET', `/v1/blogs/${blog.id}/webhooks/${created.id}/deliveries`), 404, 'not_found');
    } finally {
      await receiver.close();
    }
  });

  it('signs the very timestamp it sends, even when the clock reads differently from one call to the next', async () => {
    // Once the signature and the webhook-timestamp header read the clock apart: a second
    // ticking over between the two made a delivery no receiver could verify (seen in CI).
    const blog = await buildBlog(t);
    const receiver = await startReceiver();
    const realNow = Date.now.bind(Date);
    const skewed = vi.spyOn(Date, 'now').mockImplementation(() => realNow() + 1_500);
    try {
      await subscribe(blog, receiver, ['post.published']);
      await buildPost(blog, { title: 'Ticking', status: 'published' });
      const [got] = await receiver.waitFor(1);
      expect(got!.verified).toBe(true);
    } finally {
      skewed.mockRestore();
      await receiver.close();
    }
  });

  it('delivers every event type, signed so that standardwebhooks verifies it, in order of the changes', async () => {
    const blog = await buildBlog(t);
    const receiver = await startReceiver();
    try {
      await subscribe(blog, receiver);
      await buildPost(blog, { title: 'Hello', slug: 'hello', status: 'published' });
      await receiver.waitFor(1);
      await blog.actor.request('PUT', postPath('hello'), { blogId: blog.id, body: { title: 'Hello again' } });
      await receiver.waitFor(2);
      await blog.actor.request('POST', postPath('hello', '/unpublish'), { blogId: blog.id });
      await receiver.waitFor(3);
      await blog.actor.request('DELETE', postPath('hello'), { blogId: blog.id });
      await receiver.waitFor(4);
      // A new draft is no event.
      await buildPost(blog, { title: 'Later', slug: 'later' });
      const when = new Date(t.clock.now().getTime() + 3600_000).toISOString();
      await blog.actor.request('POST', postPath('later', '/schedule'), { blogId: blog.id, body: { scheduled_at: when } });
      await receiver.waitFor(5);
      // The scheduler publishes it when its time comes: post.published.
      t.clock.advance(3600_000 + 1);
      await t.folio.tick();
      await receiver.waitFor(6);
      await blog.actor.request('PUT', `/v1/blogs/${blog.id}`, { body: { name: 'Renamed' } });
      const got = await receiver.waitFor(7);
      expect(got.map((r) => r.type)).toEqual([
        'post.published',
        'post.updated',
        'post.unpublished',
        'post.deleted',
        'post.scheduled',
        'post.published',
        'blog.updated',
      ]);
      expect(got.every((r) => r.verified)).toBe(true);
      expect(new Set(got.map((r) => r.id)).size).toBe(7);
      expect(got[0]!.body).toMatchObject({
        type: 'post.published',
        data: { blog: { id: blog.id, slug: blog.slug }, post: { slug: 'hello', title: 'Hello', status: 'published', url: `${blog.url}hello` } },
      });
      expect(got[5]!.body.data.post).toMatchObject({ slug: 'later', status: 'published', published_at: when });
      // The receiver has the last request before its attempt is recorded: wait for the deliveries.
      await t.folio.idle();
      const attempts = (
        await blog.actor.request(
          'GET',
          `/v1/blogs/${blog.id}/webhooks/${(await blog.actor.request('GET', `/v1/blogs/${blog.id}/webhooks`)).body.data[0].id}/deliveries`,
        )
      ).body.data;
      expect(attempts).toHaveLength(7);
      expect(attempts[0]).toMatchObject({ delivery_status: 'delivered', attempt: 1, response_code: 204, error: null });
    } finally {
      await receiver.close();
    }
  });

  it('retries a failing receiver with backoff and records every attempt', async () => {
    const blog = await buildBlog(t);
    const receiver = await startReceiver();
    receiver.answer = (_req, n) => (n <= 2 ? 500 : 200);
    try {
      const hook = await subscribe(blog, receiver, ['post.published']);
      await buildPost(blog, { title: 'Flaky', status: 'published' });
      await receiver.waitFor(1);
      await t.folio.webhooks.idle();
      // Not due yet: nothing is sent again before the first backoff (5 s) has passed.
      t.folio.webhooks.deliverDue();
      await t.folio.webhooks.idle();
      expect(receiver.received).toHaveLength(1);
      t.clock.advance(5_000);
      t.folio.webhooks.deliverDue();
      await receiver.waitFor(2);
      await t.folio.webhooks.idle();
      t.clock.advance(30_000);
      t.folio.webhooks.deliverDue();
      const got = await receiver.waitFor(3);
      await t.folio.webhooks.idle();
      expect(new Set(got.map((r) => r.id)).size).toBe(1);
      const attempts = (await blog.actor.request('GET', `/v1/blogs/${blog.id}/webhooks/${hook.id}/deliveries`)).body.data;
      expect(attempts.map((a: { attempt: number; response_code: number; delivery_status: string }) => [a.attempt, a.response_code, a.delivery_status])).toEqual(
        [
          [3, 200, 'delivered'],
          [2, 500, 'delivered'],
          [1, 500, 'delivered'],
        ],
      );
      expect(attempts[2].error).toBe('answered 500');
    } finally {
      await receiver.close();
    }
  });

  it('redelivers a delivery on request: the same body and webhook-id, one attempt more; only the owner can', async () => {
    const blog = await buildBlog(t);
    const receiver = await startReceiver();
    try {
      const hook = await subscribe(blog, receiver, ['post.published']);
      await buildPost(blog, { title: 'Again', status: 'published' });
      await receiver.waitFor(1);
      await t.folio.webhooks.idle();
      const deliveries = `/v1/blogs/${blog.id}/webhooks/${hook.id}/deliveries`;
      const [first] = (await blog.actor.request('GET', deliveries)).body.data;
      const stranger = await buildBlog(t);
      const foreign = await stranger.actor.request('POST', `${deliveries}/${first.delivery_id}/redeliver`);
      expectError(foreign, 404, 'not_found');
      expectError(await blog.actor.request('POST', `${deliveries}/msg_nope/redeliver`), 404, 'not_found');
      const res = await blog.actor.request('POST', `${deliveries}/${first.delivery_id}/redeliver`);
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({ delivery_id: first.delivery_id, delivery_status: 'pending' });
      const got = await receiver.waitFor(2);
      await t.folio.webhooks.idle();
      expect(got[1]!.id).toBe(got[0]!.id);
      expect(got[1]!.body).toEqual(got[0]!.body);
      expect(got[1]!.verified).toBe(true);
      const attempts = (await blog.actor.request('GET', deliveries)).body.data;
      expect(attempts.map((a: { attempt: number; delivery_status: string }) => [a.attempt, a.delivery_status])).toEqual([
        [2, 'delivered'],
        [1, 'delivered'],
      ]);
    } finally {
      await receiver.close();
    }
  });

  it('gives up after 24 hours of failures', async () => {
    const blog = await buildBlog(t);
    const receiver = await startReceiver();
    receiver.answer = () => 503;
    try {
      const hook = await subscribe(blog, receiver, ['post.published']);
      await buildPost(blog, { status: 'published' });
      await receiver.waitFor(1);
      for (let i = 0; i < 30; i++) {
        await t.folio.webhooks.idle();
        t.clock.advance(4 * 3600_000);
        t.folio.webhooks.deliverDue();
      }
      await t.folio.webhooks.idle();
      const attempts = (await blog.actor.request('GET', `/v1/blogs/${blog.id}/webhooks/${hook.id}/deliveries`)).body.data;
      expect(attempts[0].delivery_status).toBe('failed');
      expect(attempts.length).toBeLessThan(15);
    } finally {
      await receiver.close();
    }
  });

  it("never lets one slow receiver delay another blog's deliveries", async () => {
    const slowBlog = await buildBlog(t);
    const fastBlog = await buildBlog(t);
    const slow = await startReceiver('/slow');
    const fast = await startReceiver('/fast');
    slow.answer = () => 'hold';
    try {
      await subscribe(slowBlog, slow, ['post.published']);
      await subscribe(fastBlog, fast, ['post.published']);
      await buildPost(slowBlog, { status: 'published' });
      await slow.waitFor(1);
      await buildPost(fastBlog, { status: 'published' });
      // Well within the 10 s the slow receiver may hold its request.
      const [got] = await fast.waitFor(1, 3_000);
      expect(got!.verified).toBe(true);
      expect(slow.received).toHaveLength(1);
    } finally {
      await slow.close();
      await fast.close();
    }
  });
});

describe('webhooks to receivers that trickle their answer (one byte at a time, never finishing)', () => {
  it("holds at most an account's share of the send slots: another account's delivery goes out while 20 are stuck", async () => {
    // A deadline far beyond the test: only the per-account share lets the other delivery through.
    const t = await startTestApp({ env: { FOLIO_WEBHOOKS_ALLOW_PRIVATE: 'true' }, webhookLimits: { timeoutMs: 600_000 } });
    const trickler = await startReceiver('/trickle');
    trickler.answer = () => 'trickle';
    const other = await startReceiver('/other');
    try {
      const tenant = await buildAccount(t);
      const blogs = [await buildBlog(t, { actor: tenant }), await buildBlog(t, { actor: tenant })];
      for (const blog of blogs) {
        for (let i = 0; i < 10; i++) {
          const res = await blog.actor.request('POST', `/v1/blogs/${blog.id}/webhooks`, {
            body: { url: `${trickler.url}?n=${i}`, events: ['post.published'] },
          });
          expect(res.status, res.text).toBe(201);
        }
        await buildPost(blog, { status: 'published' });
      }
      // The account's share (4 of the 16 slots) is stuck in trickled answers; its other 16
      // deliveries wait for that share, not for the slots every account uses.
      await trickler.waitFor(DELIVERY_LIMITS.perAccount);
      const otherBlog = await buildBlog(t);
      await subscribe(otherBlog, other, ['post.published']);
      await buildPost(otherBlog, { status: 'published' });
      const [got] = await other.waitFor(1, 20_000);
      expect(got!.verified).toBe(true);
      expect(trickler.received).toHaveLength(DELIVERY_LIMITS.perAccount);
      expect(trickler.abandoned).toBe(0);
    } finally {
      await trickler.close();
      await other.close();
      await t.close();
    }
  });

  it('abandons a trickling send at the deadline over the whole exchange and retries it per the backoff', async () => {
    const t = await startTestApp({ env: { FOLIO_WEBHOOKS_ALLOW_PRIVATE: 'true' }, webhookLimits: { timeoutMs: 600 } });
    const receiver = await startReceiver();
    // Far more often than the deadline: a timeout that restarts with every byte never fires.
    receiver.trickleMs = 40;
    receiver.answer = (_req, n) => (n === 1 ? 'trickle' : 204);
    try {
      const blog = await buildBlog(t);
      const hook = await subscribe(blog, receiver, ['post.published']);
      await buildPost(blog, { status: 'published' });
      await receiver.waitFor(1);
      await t.folio.webhooks.idle();
      await receiver.waitForAbandoned(1);
      const first = (await blog.actor.request('GET', `/v1/blogs/${blog.id}/webhooks/${hook.id}/deliveries`)).body.data;
      expect(first).toEqual([expect.objectContaining({ attempt: 1, delivery_status: 'pending', error: 'no complete answer within 0.6 s' })]);
      // Not again before the first backoff (5 s), then again with the same webhook-id.
      t.folio.webhooks.deliverDue();
      await t.folio.webhooks.idle();
      expect(receiver.received).toHaveLength(1);
      t.clock.advance(5_000);
      t.folio.webhooks.deliverDue();
      const got = await receiver.waitFor(2);
      await t.folio.webhooks.idle();
      expect(got[1]!.id).toBe(got[0]!.id);
      const attempts = (await blog.actor.request('GET', `/v1/blogs/${blog.id}/webhooks/${hook.id}/deliveries`)).body.data;
      expect(
        attempts.map((a: { attempt: number; response_code: number | null; delivery_status: string }) => [a.attempt, a.response_code, a.delivery_status]),
      ).toEqual([
        [2, 204, 'delivered'],
        [1, null, 'delivered'],
      ]);
    } finally {
      await receiver.close();
      await t.close();
    }
  });

  it('shuts down without waiting for a trickling receiver; the delivery is sent again after the restart', async () => {
    const dataDir = testTempDir('folio-webhook-stop-');
    const options = {
      dataDir,
      env: { ...(await freshDataEnv(dataDir)), FOLIO_WEBHOOKS_ALLOW_PRIVATE: 'true' },
      webhookLimits: { timeoutMs: 600_000, closeGraceMs: 100 },
    };
    const receiver = await startReceiver();
    receiver.answer = (_req, n) => (n === 1 ? 'trickle' : 204);
    let second: TestApp | null = null;
    try {
      const t = await startTestApp(options);
      const blog = await buildBlog(t);
      await subscribe(blog, receiver, ['post.published']);
      await buildPost(blog, { status: 'published' });
      await receiver.waitFor(1);
      let timer: NodeJS.Timeout | undefined;
      const closed = await Promise.race([
        t.close().then(() => 'closed'),
        new Promise((resolve) => (timer = setTimeout(() => resolve('still waiting'), 20_000))),
      ]);
      clearTimeout(timer);
      expect(closed).toBe('closed');
      await receiver.waitForAbandoned(1);
      // Cut off by the shutdown, not failed by the receiver: still due at once after the restart.
      second = await startTestApp(options);
      second.folio.webhooks.deliverDue();
      const got = await receiver.waitFor(2);
      expect(got[1]!.id).toBe(got[0]!.id);
      expect(got[1]!.verified).toBe(true);
    } finally {
      await second?.close();
      await receiver.close();
    }
  });
});

describe('webhooks and private addresses (SSRF)', () => {
  let t: TestApp;
  const dns = new Map<string, string>();
  beforeAll(async () => {
    t = await startTestApp({
      webhookLookup: async (host) =>
        dns.has(host) ? [{ address: dns.get(host)!, family: dns.get(host)!.includes(':') ? 6 : 4 }] : Promise.reject(new Error('ENOTFOUND')),
    });
  });
  afterAll(async () => t.close());

  it('refuses URLs that are or resolve to loopback, private, link-local or unresolvable addresses', async () => {
    const blog = await buildBlog(t);
    dns.set('intranet.example.com', '10.1.2.3');
    dns.set('v6local.example.com', 'fd00::1');
    for (const url of [
      'http://127.0.0.1:8080/hook',
      'http://[::1]/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://192.168.1.1/',
      'http://intranet.example.com/hook',
      'https://v6local.example.com/',
      'http://100.64.0.1/',
      'http://nowhere.example.com/',
      'http://[::ffff:127.0.0.1]/',
      'http://[::127.0.0.1]/',
      'http://[64:ff9b::a9fe:a9fe]/latest/meta-data',
      'http://[2002:7f00:1::1]/',
    ]) {
      const res = await blog.actor.request('POST', `/v1/blogs/${blog.id}/webhooks`, { body: { url, events: ['post.published'] } });
      expectFieldError(res, 'url');
    }
    expectFieldError(
      await blog.actor.request('POST', `/v1/blogs/${blog.id}/webhooks`, { body: { url: 'http://user:pw@hooks.example.com/', events: ['post.published'] } }),
      'url',
    );
  });

  it('checks the address again at delivery: a name that now resolves to a private address gets nothing', async () => {
    const blog = await buildBlog(t);
    dns.set('rebind.example.com', '93.184.216.34');
    const created = await blog.actor.request('POST', `/v1/blogs/${blog.id}/webhooks`, {
      body: { url: 'http://rebind.example.com/hook', events: ['post.published'] },
    });
    expect(created.status).toBe(201);
    dns.set('rebind.example.com', '127.0.0.1');
    await buildPost(blog, { status: 'published' });
    await new Promise((r) => setTimeout(r, 50));
    await t.folio.webhooks.idle();
    const attempts = (await blog.actor.request('GET', `/v1/blogs/${blog.id}/webhooks/${created.body.id}/deliveries`)).body.data;
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({ response_code: null, delivery_status: 'pending' });
    expect(attempts[0].error).toContain('resolves to 127.0.0.1');
  });
});

describe('webhooks through a crash', () => {
  it('delivers an event whose server died mid-delivery once a server runs again on the data dir', async () => {
    const receiver = await startReceiver();
    receiver.answer = (_req, n) => (n === 1 ? 'hold' : 204);
    const first = await spawnServer({ ...(await freshDatabaseEnv()), FOLIO_WEBHOOKS_ALLOW_PRIVATE: 'true' });
    let second: Awaited<ReturnType<typeof spawnServer>> | null = null;
    try {
      const auth = { authorization: `Bearer ${first.apiKey}`, 'content-type': 'application/json' };
      const blog = (await (
        await fetch(`${first.baseUrl}/v1/blogs`, { method: 'POST', headers: auth, body: JSON.stringify({ slug: 'crashing', name: 'Crashing' }) })
      ).json()) as { id: string };
      const hook = (await (
        await fetch(`${first.baseUrl}/v1/blogs/${blog.id}/webhooks`, {
          method: 'POST',
          headers: auth,
          body: JSON.stringify({ url: receiver.url, events: ['post.published'] }),
        })
      ).json()) as { secret: string };
      receiver.setSecret(hook.secret);
      const post = await fetch(`${first.baseUrl}/v1/posts`, {
        method: 'POST',
        headers: { ...auth, 'x-blog-id': blog.id },
        body: JSON.stringify({ title: 'Survives', content: 'x', status: 'published' }),
      });
      expect(post.status).toBe(201);
      await receiver.waitFor(1);
      first.child.kill('SIGKILL');
      await new Promise((r) => first.child.once('exit', r));
      second = await spawnServer({ ...first.cliEnv, FOLIO_WEBHOOKS_ALLOW_PRIVATE: 'true' });
      // On SQLite the restart frees the dead server's claim at once; on PostgreSQL claims may be
      // other nodes' (main.ts), so the delivery waits for it to lapse (claimLeaseMs) first.
      const lapse = first.cliEnv.FOLIO_DATABASE_URL ? claimLeaseMs(DELIVERY_LIMITS) : 0;
      const got = await receiver.waitFor(2, lapse + 15_000);
      expect(got[1]!.id).toBe(got[0]!.id);
      expect(got[1]!.verified).toBe(true);
      expect(got[1]!.body.data.post.title).toBe('Survives');
    } finally {
      // Both ran on one data dir: stop the second before the directory goes.
      await second?.cleanup();
      await first.cleanup();
      await receiver.close();
    }
  });
});
