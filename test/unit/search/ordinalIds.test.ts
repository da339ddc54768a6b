import { describe, expect, it } from 'vitest';
import { OrdinalIds } from '../../../src/search/static/ordinalIds.js';

describe('OrdinalIds', () => {
  it('hands out ordinals after the stored ones, finds the last of each id, and joins them for storing', () => {
    const ids = OrdinalIds.parse(['aa', 'bb', 'cc'].join('\n'), 3)!;
    expect(ids.push('bb')).toBe(3);
    expect(ids.push('dd')).toBe(4);
    expect([0, 1, 2, 3, 4].map((ordinal) => ids.at(ordinal))).toEqual(['aa', 'bb', 'cc', 'bb', 'dd']);
    expect(['aa', 'bb', 'cc', 'dd', 'ee'].map((id) => ids.lastOrdinalOf(id))).toEqual([0, 3, 2, 4, -1]);
    expect(ids.joined()).toBe('aa\nbb\ncc\nbb\ndd');
    // Joined into one column: the same answers, and more ordinals after it.
    expect(ids.lastOrdinalOf('bb')).toBe(3);
    expect(ids.push('aa')).toBe(5);
    expect(ids.lastOrdinalOf('aa')).toBe(5);
    expect(OrdinalIds.parse(ids.joined(), 6)!.lastOrdinalOf('dd')).toBe(4);
  });

  it('forgets the id of a cleared ordinal, stored or handed out since', () => {
    const ids = OrdinalIds.parse(['aa', 'bb', 'cc'].join('\n'), 3)!;
    ids.push('dd');
    ids.clear(1);
    ids.clear(3);
    expect(['aa', 'bb', 'cc', 'dd'].map((id) => ids.lastOrdinalOf(id))).toEqual([0, -1, 2, -1]);
    expect(ids.joined()).toBe('aa\n--\ncc\n--');
    // An edited post: its old ordinal cleared, the same id handed out again.
    ids.clear(0);
    expect(ids.push('aa')).toBe(4);
    expect(ids.lastOrdinalOf('aa')).toBe(4);
    expect(ids.joined()).not.toMatch(/^aa/);
    // A column of mixed widths (an older state) blanks to ''.
    const legacy = OrdinalIds.of(['a1', '', 'c33']);
    legacy.joined();
    legacy.clear(2);
    expect(legacy.joined()).toBe('a1\n\n');
  });

  it('starts empty or from a list, and refuses a column of another length', () => {
    const empty = OrdinalIds.of([]);
    expect(empty.length).toBe(0);
    expect(empty.joined()).toBe('');
    expect(empty.push('x')).toBe(0);
    expect(empty.joined()).toBe('x');
    const legacy = OrdinalIds.of(['a1', '', 'c3']); // a dead ordinal of an older state: ''
    expect(legacy.lastOrdinalOf('c3')).toBe(2);
    expect(OrdinalIds.parse(legacy.joined(), 3)!.at(1)).toBe('');
    expect(OrdinalIds.parse('a\nb', 3)).toBeNull();
  });
});
