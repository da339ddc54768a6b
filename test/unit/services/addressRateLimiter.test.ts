import { describe, expect, it } from 'vitest';
import { AddressRateLimiter } from '../../../src/services/addressRateLimiter.js';
import { FakeClock } from '../../support/fakeClock.js';

describe('AddressRateLimiter', () => {
  it('counts each address in fixed windows and says when the window ends', () => {
    const clock = new FakeClock('2026-03-24T10:00:30.000Z');
    const limiter = new AddressRateLimiter(clock, 3, 60_000);
    expect([1, 2, 3].map(() => limiter.hit('192.0.2.1').remaining)).toEqual([2, 1, 0]);
    const refused = limiter.hit('192.0.2.1');
    expect(refused).toMatchObject({ allowed: false, limit: 3, remaining: 0, retryAfter: 30 });
    expect(refused.reset).toBe(Date.parse('2026-03-24T10:01:00.000Z') / 1000);
    expect(limiter.hit('192.0.2.2').allowed).toBe(true);
    clock.advance(30_000);
    expect(limiter.hit('192.0.2.1')).toMatchObject({ allowed: true, remaining: 2 });
  });

  it('stays bounded: past 10,000 addresses in one window the newcomers share one budget', () => {
    const limiter = new AddressRateLimiter(new FakeClock(), 2, 60_000);
    for (let i = 0; i < 10_000; i++) expect(limiter.hit(`10.0.${i >> 8}.${i & 255}`).allowed).toBe(true);
    expect(limiter.hit('203.0.113.1').allowed).toBe(true);
    expect(limiter.hit('203.0.113.2').allowed).toBe(true);
    expect(limiter.hit('203.0.113.3').allowed).toBe(false);
    // Known addresses keep their own budget.
    expect(limiter.hit('10.0.0.0')).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('forgets the addresses of past windows when the map is full', () => {
    const clock = new FakeClock();
    const limiter = new AddressRateLimiter(clock, 1, 60_000);
    for (let i = 0; i < 10_000; i++) limiter.hit(`10.0.${i >> 8}.${i & 255}`);
    clock.advance(60_000);
    for (const address of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) expect(limiter.hit(address).allowed).toBe(true);
  });
});
