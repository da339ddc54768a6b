import { describe, expect, it } from 'vitest';
import { groupDigits } from '../../../src/domain/groupDigits.js';

describe('groupDigits', () => {
  it('writes counts as en-US does, without loading ICU', () => {
    for (const n of [0, 7, 999, 1000, 12_345, 100_000, 1_000_000, 1_234_567_890, -4_500]) {
      expect(groupDigits(n)).toBe(n.toLocaleString('en-US'));
    }
  });
});
