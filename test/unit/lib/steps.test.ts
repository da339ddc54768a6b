/**
 * Computations written as step generators: run at once they give their result; run
 * cooperatively they give the same result and let the event loop in while they run.
 */
import { describe, expect, it } from 'vitest';
import { runSteps, runStepsCooperatively } from '../../../src/lib/steps.js';

/** Ten steps of 4 ms of busy work each, summing 0..9. */
function* busy(): Generator<void, number> {
  let sum = 0;
  for (let i = 0; i < 10; i++) {
    const until = performance.now() + 4;
    while (performance.now() < until);
    sum += i;
    yield;
  }
  return sum;
}

describe('step generators', () => {
  it('run at once give the result', () => {
    expect(runSteps(busy())).toBe(45);
  });

  it('run cooperatively give the same result and let callbacks queued meanwhile run before they end', async () => {
    const seen: string[] = [];
    setImmediate(() => seen.push('immediate'));
    const result = runStepsCooperatively(busy()).then((sum) => {
      seen.push('done');
      return sum;
    });
    expect(await result).toBe(45);
    expect(seen).toEqual(['immediate', 'done']);
  });

  it('give the result of a generator that never pauses', async () => {
    // biome-ignore lint/correctness/useYield: a generator without a yield is the case under test.
    function* none(): Generator<void, string> {
      return 'at once';
    }
    expect(await runStepsCooperatively(none())).toBe('at once');
  });
});
