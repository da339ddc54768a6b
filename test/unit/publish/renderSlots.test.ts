/** RenderSlots: at most `size` full renders at once, the rest in arrival order, a failure frees its slot. */
import { describe, expect, it } from 'vitest';
import { RenderSlots } from '../../../src/publish/parallel/renderSlots.js';

describe('RenderSlots', () => {
  it('runs at most `size` at once and the waiting ones in arrival order', async () => {
    const slots = new RenderSlots(2);
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const gates = Array.from({ length: 5 }, () => {
      let resolve = (): void => undefined;
      const promise = new Promise<void>((done) => (resolve = done));
      return { promise, resolve: () => resolve() };
    });
    const runs = gates.map((gate, i) =>
      slots.run(async () => {
        started.push(i);
        most = Math.max(most, ++running);
        await gate.promise;
        running -= 1;
        return i;
      }),
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([0, 1]);
    expect(slots.stats()).toEqual({ running: 2, waiting: 3 });
    gates[1]!.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([0, 1, 2]);
    for (const gate of gates) gate.resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3, 4]);
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(most).toBe(2);
    expect(slots.stats()).toEqual({ running: 0, waiting: 0 });
  });

  it('frees the slot of a render that fails', async () => {
    const slots = new RenderSlots(1);
    await expect(slots.run(async () => Promise.reject(new Error('render failed')))).rejects.toThrow('render failed');
    expect(await slots.run(async () => 'next')).toBe('next');
    expect(slots.stats()).toEqual({ running: 0, waiting: 0 });
  });
});
