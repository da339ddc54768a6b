import { describe, expect, it } from 'vitest';
import { AnswerCache } from '../../../src/http/answerCache.js';

describe('AnswerCache', () => {
  it('keeps answers within its character budget, least recently used out', () => {
    const cache = new AnswerCache(10, 10);
    cache.set('a', 'aaaa');
    cache.set('b', 'bbbb');
    expect(cache.get('a')).toBe('aaaa'); // a is now the most recent
    cache.set('c', 'cccc'); // 12 > 10: b goes
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe('aaaa');
    expect(cache.get('c')).toBe('cccc');
  });

  it('never keeps an answer larger than the entry limit, and never replaces a key', () => {
    const cache = new AnswerCache(100, 5);
    cache.set('big', 'x'.repeat(6));
    expect(cache.get('big')).toBeUndefined();
    cache.set('k', 'one');
    cache.set('k', 'two');
    expect(cache.get('k')).toBe('one');
  });
});
