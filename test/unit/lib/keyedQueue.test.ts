import { describe, expect, it } from 'vitest';
import { KeyedQueue } from '../../../src/lib/keyedQueue.js';
import { SingleFlight } from '../../../src/lib/singleFlight.js';

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('KeyedQueue', () => {
  it('runs the work of one key one at a time, in order', async () => {
    const queue = new KeyedQueue();
    const log: string[] = [];
    const step = (name: string) => async () => {
      log.push(`start ${name}`);
      await tick();
      log.push(`end ${name}`);
      return name;
    };
    const results = await Promise.all([queue.run('a', step('1')), queue.run('a', step('2')), queue.run('a', step('3'))]);
    expect(results).toEqual(['1', '2', '3']);
    expect(log).toEqual(['start 1', 'end 1', 'start 2', 'end 2', 'start 3', 'end 3']);
  });

  it('runs different keys side by side', async () => {
    const queue = new KeyedQueue();
    const log: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const a = queue.run('a', async () => {
      log.push('a started');
      await gate;
      log.push('a done');
    });
    await queue.run('b', async () => log.push('b ran'));
    expect(log).toEqual(['a started', 'b ran']);
    release();
    await a;
    await queue.idle();
    expect(queue.size).toBe(0);
  });

  it('rejects only the failing caller and keeps the key going', async () => {
    const queue = new KeyedQueue();
    const failed = queue.run('a', async () => {
      throw new Error('boom');
    });
    const after = queue.run('a', async () => 'still runs');
    await expect(failed).rejects.toThrow('boom');
    await expect(after).resolves.toBe('still runs');
  });

  it('idle waits for work queued while it waits', async () => {
    const queue = new KeyedQueue();
    const log: string[] = [];
    void queue.run('a', async () => {
      await tick();
      void queue.run('b', async () => {
        await tick();
        log.push('b');
      });
      log.push('a');
    });
    await queue.idle();
    expect(log).toEqual(['a', 'b']);
    expect(queue.busy('a')).toBe(false);
  });
});

describe('SingleFlight', () => {
  it('shares one load among callers that ask while it runs, and loads again afterwards', async () => {
    const flight = new SingleFlight<string, number>();
    let loads = 0;
    const loader = async (): Promise<number> => {
      loads += 1;
      await tick();
      return loads;
    };
    const [x, y] = await Promise.all([flight.load('k', loader), flight.load('k', loader)]);
    expect([x, y, loads]).toEqual([1, 1, 1]);
    expect(await flight.load('k', loader)).toBe(2);
  });

  it('forgets a failed load so the next caller tries again', async () => {
    const flight = new SingleFlight<string, string>();
    await expect(flight.load('k', async () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(flight.has('k')).toBe(false);
    await expect(flight.load('k', async () => 'up')).resolves.toBe('up');
  });
});
