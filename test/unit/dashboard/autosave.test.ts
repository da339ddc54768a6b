import { describe, expect, it } from 'vitest';
import { Autosave, type SaveOutcome, type SaveStatus, type Timers } from '../../../web/dashboard/editor/autosave.js';

/** Timers run by hand: `fire()` runs what is due, as the pause after the last edit ending. */
function manualTimers() {
  let next = 1;
  const pending = new Map<number, () => void>();
  const timers: Timers = {
    set: (run) => {
      pending.set(next, run);
      return next++;
    },
    clear: (handle) => pending.delete(handle as number),
  };
  return {
    timers,
    get pending() {
      return pending.size;
    },
    fire() {
      const due = [...pending.values()];
      pending.clear();
      for (const run of due) run();
    },
  };
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

function setup(automatic = true) {
  const clock = manualTimers();
  const statuses: SaveStatus[] = [];
  const saves: ReturnType<typeof deferred<SaveOutcome>>[] = [];
  const autosave = new Autosave({
    delayMs: 2000,
    automatic: () => automatic,
    timers: clock.timers,
    onStatus: (status) => statuses.push(status),
    save: () => {
      const save = deferred<SaveOutcome>();
      saves.push(save);
      return save.promise;
    },
  });
  return { clock, statuses, saves, autosave };
}

describe('the editor autosave', () => {
  it('saves once after a pause, however many edits came before it', async () => {
    const { clock, statuses, saves, autosave } = setup();
    autosave.changed();
    autosave.changed();
    autosave.changed();
    expect(autosave.status).toBe('unsaved');
    expect(clock.pending).toBe(1);
    clock.fire();
    expect(saves).toHaveLength(1);
    expect(autosave.status).toBe('saving');
    saves[0]!.resolve('saved');
    await settle();
    expect(autosave.status).toBe('saved');
    expect(autosave.dirty).toBe(false);
    expect(statuses).toEqual(['unsaved', 'saving', 'saved']);
  });

  it('stays unsaved when the author typed during the save, and saves again after the next pause', async () => {
    const { clock, saves, autosave } = setup();
    autosave.changed();
    clock.fire();
    autosave.changed();
    expect(autosave.status).toBe('saving');
    saves[0]!.resolve('saved');
    await settle();
    expect(autosave.status).toBe('unsaved');
    expect(autosave.dirty).toBe(true);
    clock.fire();
    expect(saves).toHaveLength(2);
    saves[1]!.resolve('saved');
    await settle();
    expect(autosave.status).toBe('saved');
  });

  it('runs one save at a time: a flush during a save waits for it, then saves the rest', async () => {
    const { clock, saves, autosave } = setup();
    autosave.changed();
    clock.fire();
    autosave.changed();
    const flushed = autosave.flush();
    await settle();
    expect(saves).toHaveLength(1);
    saves[0]!.resolve('saved');
    await settle();
    expect(saves).toHaveLength(2);
    saves[1]!.resolve('saved');
    expect(await flushed).toBe(true);
  });

  it('stops after a conflict until the author chooses, keeping the edits unsaved', async () => {
    const { clock, saves, autosave } = setup();
    autosave.changed();
    clock.fire();
    saves[0]!.resolve('conflict');
    await settle();
    expect(autosave.status).toBe('conflict');
    autosave.changed();
    expect(clock.pending).toBe(0);
    expect(await autosave.flush()).toBe(false);
    expect(saves).toHaveLength(1);
    expect(autosave.dirty).toBe(true);
    autosave.resume();
    expect(autosave.status).toBe('unsaved');
    clock.fire();
    saves[1]!.resolve('saved');
    await settle();
    expect(autosave.status).toBe('saved');
  });

  it('reports a failed save with its message and saves again with the next edit', async () => {
    const { clock, saves, autosave } = setup();
    autosave.changed();
    clock.fire();
    saves[0]!.reject(new Error('network down'));
    await settle();
    expect(autosave.status).toBe('failed');
    expect(autosave.dirty).toBe(true);
    autosave.changed();
    clock.fire();
    saves[1]!.resolve('saved');
    await settle();
    expect(autosave.status).toBe('saved');
  });

  it('does not save by itself when not automatic (a published post), but Save flushes', async () => {
    const { clock, saves, autosave } = setup(false);
    autosave.changed();
    expect(clock.pending).toBe(0);
    expect(autosave.status).toBe('unsaved');
    const flushed = autosave.flush();
    saves[0]!.resolve('saved');
    expect(await flushed).toBe(true);
  });

  it('announces only changes of state', async () => {
    const { clock, statuses, saves, autosave } = setup();
    autosave.changed();
    clock.fire();
    saves[0]!.reject(new Error('offline'));
    await settle();
    autosave.changed();
    clock.fire();
    saves[1]!.reject(new Error('offline'));
    await settle();
    expect(statuses).toEqual(['unsaved', 'saving', 'failed', 'unsaved', 'saving', 'failed']);
  });

  it('forgets edits on reset (a reload took the server version)', () => {
    const { clock, autosave } = setup();
    autosave.changed();
    autosave.reset();
    expect(clock.pending).toBe(0);
    expect(autosave.dirty).toBe(false);
    expect(autosave.status).toBe('saved');
  });
});
