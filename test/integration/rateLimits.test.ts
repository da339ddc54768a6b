import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestResponse } from '../support/testApp.js';
import { FakeClock } from '../support/fakeClock.js';
import { PLANS, type Plan } from '../../src/domain/plans.js';
import { buildAccount, buildBlog, createKey, expectError, type Actor } from '../support/factories.js';

const HOUR = 3_600_000;
const PER_HOUR: Record<Plan, number> = { free: 60, starter: 300, creator: 1_000, scale: 10_000, enterprise: 100_000 };

function limitHeaders(res: TestResponse) {
  return {
    limit: Number(res.headers.get('x-ratelimit-limit')),
    remaining: Number(res.headers.get('x-ratelimit-remaining')),
    reset: Number(res.headers.get('x-ratelimit-reset')),
  };
}

describe('rate limits (FOLIO_RATE_LIMITS=on)', () => {
  let t: TestApp;
  // Midway through an hour, so the window's end is not simply "now + 1 hour".
  const clock = new FakeClock('2026-03-24T10:20:00.000Z');
  const windowEnd = Date.parse('2026-03-24T11:00:00.000Z') / 1000;

  beforeAll(async () => {
    t = await startTestApp({ env: { FOLIO_RATE_LIMITS: 'on' }, clock });
  });
  afterAll(async () => t.close());

  it('gives a free account 60 requests an hour with the headers on every response, then 429', async () => {
    const free = await buildAccount(t, 'free');
    const blog = await buildBlog(t, { actor: free }); // request 1
    const seen: number[] = [];
    for (let i = 2; i <= 60; i += 1) {
      // Mixed outcomes: successes and errors alike count and carry the headers.
      const res =
        i % 3 === 0 ? await free.request('GET', '/v1/blogs/00000000-0000-4000-8000-000000000000') : await free.request('GET', '/v1/posts', { blogId: blog.id });
      expect(res.status).toBe(i % 3 === 0 ? 404 : 200);
      const headers = limitHeaders(res);
      expect(headers.limit).toBe(60);
      expect(headers.reset).toBe(windowEnd);
      seen.push(headers.remaining);
    }
    expect(seen).toEqual(Array.from({ length: 59 }, (_, i) => 58 - i));

    const over = await free.request('GET', '/v1/blogs');
    expectError(over, 429, 'rate_limit_exceeded');
    expect(limitHeaders(over)).toEqual({ limit: 60, remaining: 0, reset: windowEnd });
    const nowSeconds = clock.now().getTime() / 1000;
    expect(over.body.retry_after).toBe(windowEnd - nowSeconds);
    expect(over.headers.get('retry-after')).toBe(String(windowEnd - nowSeconds));
    expect(over.body.retry_after).toBe(40 * 60);
  });

  it('counts every key of the account together, and leaves other accounts alone', async () => {
    const free = await buildAccount(t, 'free');
    const blog = await buildBlog(t, { actor: free });
    const bound = await createKey(free, blog.id);
    for (let i = 0; i < 29; i += 1) await free.request('GET', '/v1/blogs');
    for (let i = 0; i < 29; i += 1) await t.request('GET', '/v1/posts', { key: bound.key });
    // 2 + 29 + 29 = 60 requests used.
    expectError(await t.request('GET', '/v1/posts', { key: bound.key }), 429, 'rate_limit_exceeded');
    expectError(await free.request('GET', '/v1/blogs'), 429, 'rate_limit_exceeded');
    const other = await buildAccount(t, 'free');
    const res = await other.request('GET', '/v1/blogs');
    expect(res.status).toBe(200);
    expect(limitHeaders(res).remaining).toBe(59);
  });

  it('shortens retry_after as the window runs out', async () => {
    const free = await buildAccount(t, 'free');
    for (let i = 0; i < 60; i += 1) await free.request('GET', '/v1/blogs');
    clock.advance(25 * 60_000);
    const res = await free.request('GET', '/v1/blogs');
    expectError(res, 429, 'rate_limit_exceeded');
    expect(res.body.retry_after).toBe(15 * 60);
    expect(res.headers.get('retry-after')).toBe('900');
    clock.set('2026-03-24T10:20:00.000Z');
  });

  it('starts a fresh budget when the clock moves into the next hour', async () => {
    const free = await buildAccount(t, 'free');
    for (let i = 0; i < 60; i += 1) await free.request('GET', '/v1/blogs');
    expectError(await free.request('GET', '/v1/blogs'), 429, 'rate_limit_exceeded');
    clock.advance(HOUR);
    const res = await free.request('GET', '/v1/blogs');
    expect(res.status).toBe(200);
    expect(limitHeaders(res)).toEqual({ limit: 60, remaining: 59, reset: windowEnd + 3600 });
    clock.set('2026-03-24T10:20:00.000Z');
  });

  for (const plan of PLANS) {
    it(`announces ${PER_HOUR[plan]} requests an hour for the ${plan} plan`, async () => {
      const actor: Actor = await buildAccount(t, plan);
      const res = await actor.request('GET', '/v1/blogs');
      expect(limitHeaders(res)).toEqual({ limit: PER_HOUR[plan], remaining: PER_HOUR[plan] - 1, reset: windowEnd });
    });
  }

  it('does not count or label requests that fail authentication', async () => {
    const res = await t.request('GET', '/v1/blogs', { key: null });
    expectError(res, 401, 'unauthorized');
    expect(res.headers.get('x-ratelimit-limit')).toBeNull();
  });
});

describe('rate limits off (FOLIO_RATE_LIMITS=off)', () => {
  it('never answers 429 and sends no rate-limit headers', async () => {
    const t = await startTestApp({ env: { FOLIO_RATE_LIMITS: 'off' } });
    try {
      const free = await buildAccount(t, 'free');
      for (let i = 0; i < 61; i += 1) {
        const res = await free.request('GET', '/v1/blogs');
        expect(res.status).toBe(200);
        expect(res.headers.get('x-ratelimit-limit')).toBeNull();
      }
    } finally {
      await t.close();
    }
  });
});
