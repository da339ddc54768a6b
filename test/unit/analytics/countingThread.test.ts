import { readdirSync, readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { COUNTING_NICE } from '../../../src/analytics/countingMessages.js';
import { LocalCounting } from '../../../src/analytics/counting.js';
import { CountingThread } from '../../../src/analytics/countingThread.js';
import type { ViewLoad } from '../../../src/analytics/viewTally.js';
import { compiledScript } from '../../../src/workers/compiledScript.js';
import { createLogger } from '../../../src/lib/logger.js';

const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const SALT = Buffer.alloc(32, 7).toString('base64');

function load(n: number, overrides: Partial<ViewLoad> = {}): ViewLoad {
  return {
    kind: 'beacon',
    day: '2026-11-29',
    salt: SALT,
    blogId: 'b1',
    postId: n % 3 === 0 ? null : `p${n % 5}`,
    host: 'blog.example',
    path: '/_folio/view.gif',
    method: 'GET',
    userAgent: n % 7 === 0 ? 'Googlebot/2.1 (+http://www.google.com/bot.html)' : CHROME,
    secPurpose: '',
    purpose: '',
    xMoz: '',
    referer: n % 4 === 0 ? `http://blog.example/p?utm_source=news${n % 2}` : 'http://blog.example/p',
    address: `203.0.113.${n % 40}`,
    at: 1_700_000_000_000 + n,
    ...overrides,
  };
}

/** Loads a busy blog sees: page loads with external referrers, their beacons, bots, reloads. */
function loads(count: number): ViewLoad[] {
  const all: ViewLoad[] = [];
  for (let n = 0; n < count; n++) {
    if (n % 10 === 0) all.push(load(n, { kind: 'page', path: '/p', referer: 'https://news.example.com/item' }));
    all.push(load(n));
  }
  return all;
}

const sorted = <T>(rows: T[]): T[] => [...rows].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

const open: CountingThread[] = [];
afterEach(async () => {
  for (const thread of open.splice(0)) await thread.close();
});

function thread(): CountingThread {
  const script = compiledScript('analytics/countingWorker');
  if (!script) throw new Error('no compiled counting worker: npm test builds dist/ first');
  const counting = new CountingThread(script, createLogger('silent'));
  open.push(counting);
  return counting;
}

describe('counting in a worker thread', () => {
  it('counts exactly what counting in this thread counts, including loads handed in just before the drain', async () => {
    const threaded = thread();
    const local = new LocalCounting();
    for (const one of loads(2_000)) {
      threaded.add(one);
      local.add(one);
    }
    const [a, b] = [await threaded.drain(), await local.drain()];
    expect(a.days.length).toBeGreaterThan(0);
    expect(a.referrers.length).toBeGreaterThan(0);
    expect(sorted(a.days)).toEqual(sorted(b.days));
    expect(sorted(a.referrers)).toEqual(sorted(b.referrers));
    expect(await threaded.sizes()).toEqual({ ...(await local.sizes()) });
    // Drained: the next drain starts from nothing.
    expect((await threaded.drain()).days).toEqual([]);
  });

  it('takes a restored batch back for the next drain', async () => {
    const threaded = thread();
    for (const one of loads(50)) threaded.add(one);
    const batch = await threaded.drain();
    threaded.restore(batch);
    threaded.add(load(1));
    const again = await threaded.drain();
    const views = (rows: typeof batch.days) => rows.reduce((sum, row) => sum + row.views, 0);
    // The restored views plus one more load of a post (its row and the blog's).
    expect(views(again.days)).toBe(views(batch.days) + 2);
  });

  it('answers drains after close without hanging, and counts again on the next load', async () => {
    const threaded = thread();
    threaded.add(load(1));
    await threaded.close();
    expect(await threaded.drain()).toEqual({ days: [], referrers: [] });
    threaded.add(load(2));
    const batch = await threaded.drain();
    expect(batch.days.map((row) => row.views)).toEqual([1, 1]);
  });
});

describe('the counting thread at rest', () => {
  it('stops only while it holds nothing, keeps a load handed in meanwhile, and counts again on the next load', async () => {
    const threaded = thread();
    const counted = async () => (await threaded.drain()).days.map((row) => row.views);
    threaded.prestart();
    expect(await threaded.retireIfEmpty()).toBe(true);
    // Stopped, and started again by the next load.
    threaded.add(load(1));
    expect(await counted()).toEqual([1, 1]);
    // Drained, but the day's visitor set remembers the reader: the thread stays.
    expect(await threaded.retireIfEmpty()).toBe(false);
    const { visitors } = await threaded.sizes();
    expect(visitors).toBeGreaterThan(0);
    // The same reader again is the same visitor: nothing was forgotten.
    threaded.add(load(1));
    await threaded.drain();
    expect((await threaded.sizes()).visitors).toBe(visitors);
  });

  it('does not stop when a load arrives while it is asked', async () => {
    const threaded = thread();
    threaded.prestart();
    const asked = threaded.retireIfEmpty();
    threaded.add(load(2));
    expect(await asked).toBe(false);
    expect(await threaded.drain().then((batch) => batch.days.map((row) => row.views))).toEqual([1, 1]);
  });
});

/** The nice value of each thread of this process (Linux: /proc/self/task/<tid>/stat, field 19). */
function threadNices(): Map<number, number> {
  const nices = new Map<number, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    nices.set(Number(tid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
  }
  return nices;
}

describe.runIf(process.platform === 'linux')('the counting thread’s priority', () => {
  it('runs below the server’s threads and leaves theirs as they were', async () => {
    const before = threadNices();
    const threaded = thread();
    threaded.add(load(1));
    await threaded.drain();
    const after = threadNices();
    const added = [...after].filter(([tid]) => !before.has(tid));
    expect(added.some(([, nice]) => nice === COUNTING_NICE)).toBe(true);
    expect(getPriority()).toBe(before.get(process.pid));
    for (const [tid, nice] of before) if (after.has(tid)) expect(after.get(tid)).toBe(nice);
  });
});
