import { describe, expect, it } from 'vitest';
import { PageViews, type ReaderRequest } from '../../../src/analytics/pageViews.js';
import { DailySalts, type SaltStore } from '../../../src/analytics/visitorHash.js';
import type { ViewLoad } from '../../../src/analytics/viewTally.js';
import { FakeClock } from '../../support/fakeClock.js';

function memorySalts(): SaltStore {
  const salts = new Map<string, Buffer>();
  return {
    saltFor: async (day, fresh) => {
      if (!salts.has(day)) salts.set(day, fresh);
      return salts.get(day)!;
    },
    deleteSaltsBefore: async (day) => {
      for (const key of salts.keys()) if (key < day) salts.delete(key);
    },
  };
}

const reader: ReaderRequest = {
  blogSlug: 'b',
  host: 'b.example.com',
  path: '/_folio/view.gif',
  method: 'GET',
  userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  secPurpose: '',
  purpose: '',
  xMoz: '',
  referer: 'https://elsewhere.example/',
  address: '203.0.113.7',
};

describe('PageViews (the main thread’s part of counting)', async () => {
  it('hands each load on with its UTC day and that day’s salt, across midnight both ways', async () => {
    const clock = new FakeClock('2026-03-24T23:59:59.900Z');
    const loads: ViewLoad[] = [];
    const views = new PageViews({
      targets: { target: async () => ({ blogId: 'B', postId: 'P' }) },
      salts: new DailySalts(memorySalts(), clock),
      sink: { add: (l) => loads.push(l) },
      clock,
    });
    await views.beacon(reader, 'p');
    clock.advance(200);
    await views.beacon(reader, 'p');
    clock.set('2026-03-24T12:00:00.000Z');
    await views.beacon(reader, 'p');
    expect(loads.map((l) => l.day)).toEqual(['2026-03-24', '2026-03-25', '2026-03-24']);
    expect(loads[0]!.salt).not.toBe(loads[1]!.salt);
    expect(loads[0]).toMatchObject({
      kind: 'beacon',
      blogId: 'B',
      postId: 'P',
      host: 'b.example.com',
      address: '203.0.113.7',
      referer: reader.referer,
      userAgent: reader.userAgent,
    });
    expect(loads[0]).not.toHaveProperty('blogSlug');
    expect(loads[1]!.at).toBe(Date.parse('2026-03-25T00:00:00.100Z'));
  });

  it('hands on nothing for HEAD, bots or a target that is not published', async () => {
    const clock = new FakeClock();
    const loads: ViewLoad[] = [];
    const views = new PageViews({
      targets: { target: async (_b, post) => (post === 'p' ? { blogId: 'B', postId: 'P' } : null) },
      salts: new DailySalts(memorySalts(), clock),
      sink: { add: (l) => loads.push(l) },
      clock,
    });
    await views.beacon({ ...reader, method: 'HEAD' }, 'p');
    await views.beacon({ ...reader, userAgent: 'Googlebot/2.1 (+http://www.google.com/bot.html)' }, 'p');
    await views.beacon(reader, 'draft');
    expect(loads).toEqual([]);
    await views.beacon(reader, 'p');
    expect(loads).toHaveLength(1);
  });
});
