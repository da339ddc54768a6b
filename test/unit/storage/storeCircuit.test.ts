/**
 * The circuit in front of the store (issue 27 item 21): a timeout opens it, calls then fail at
 * once with a Retry-After, after the pause one call is let through alone, and its answer decides.
 */
import { describe, expect, it } from 'vitest';
import { StorageError, StoreTimeoutError } from '../../../src/domain/errors.js';
import { StoreCircuit } from '../../../src/storage/storeCircuit.js';
import { MemorySiteStore } from '../../support/memorySiteStore.js';

/** A store whose next calls behave as told: answer, time out, or fail otherwise. */
class ScriptedStore extends MemorySiteStore {
  mode: 'answer' | 'timeout' | 'refuse' = 'answer';
  reached = 0;
  override async get(key: string) {
    this.reached++;
    if (this.mode === 'timeout') throw new StoreTimeoutError('no answer within 5 s');
    if (this.mode === 'refuse') throw new StorageError('ECONNREFUSED');
    return super.get(key);
  }
}

describe('StoreCircuit', () => {
  it('opens on a timeout, fails fast while open, lets one probe through after the pause, and closes on its answer', async () => {
    let now = 0;
    const changes: boolean[] = [];
    const inner = new ScriptedStore();
    const circuit = new StoreCircuit(inner, { openForMs: 5_000, now: () => now, onChange: (open) => changes.push(open) });

    inner.mode = 'timeout';
    await expect(circuit.get('a')).rejects.toBeInstanceOf(StoreTimeoutError);
    expect(circuit.open).toBe(true);
    expect(changes).toEqual([true]);

    // While open: refused without reaching the store, with how long to wait.
    inner.mode = 'answer';
    now = 2_000;
    const refused = await circuit.get('a').catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(StoreTimeoutError);
    expect((refused as StoreTimeoutError).retryAfter).toBe(3);
    expect(inner.reached).toBe(1);

    // After the pause the probe's timeout opens it again.
    now = 5_001;
    inner.mode = 'timeout';
    await expect(circuit.get('a')).rejects.toBeInstanceOf(StoreTimeoutError);
    expect(inner.reached).toBe(2);
    expect(circuit.open).toBe(true);

    // The next probe answers: closed, and calls reach the store again.
    now = 10_002;
    inner.mode = 'answer';
    expect(await circuit.get('a')).toBeNull();
    expect(circuit.open).toBe(false);
    expect(await circuit.get('b')).toBeNull();
    expect(inner.reached).toBe(4);
    expect(changes).toEqual([true, false]);
  });

  it('a refusing store does not open it: refusals already fail fast', async () => {
    const inner = new ScriptedStore();
    const circuit = new StoreCircuit(inner);
    inner.mode = 'refuse';
    for (let i = 0; i < 5; i++) await expect(circuit.get('a')).rejects.toThrow('ECONNREFUSED');
    expect(circuit.open).toBe(false);
    expect(inner.reached).toBe(5);
  });
});
