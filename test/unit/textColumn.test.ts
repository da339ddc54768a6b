import { describe, expect, it } from 'vitest';
import { TextColumn } from '../../src/lib/textColumn.js';

const valuesOf = (column: TextColumn): string[] => Array.from({ length: column.length }, (_, i) => column.at(i));

describe('TextColumn', () => {
  it('cuts values of one width out of the joined string and finds them by value', () => {
    const ids = ['0b1e', 'ab12', 'ffff', '12ab'];
    const column = TextColumn.of(ids.join('\n'), ids.length)!;
    expect(valuesOf(column)).toEqual(ids);
    expect(ids.map((id) => column.indexOf(id))).toEqual([0, 1, 2, 3]);
    // Present in the string across a separator or inside a value, but not as a value.
    expect(column.indexOf('b12\n')).toBe(-1);
    expect(column.indexOf('e\nab')).toBe(-1);
    expect(column.indexOf('2ab')).toBe(-1);
    expect(column.indexOf('zzzz')).toBe(-1);
  });

  it('finds the last of repeated values, in either kind of column', () => {
    const fixed = TextColumn.of(['aa', 'bb', 'aa', 'cc', 'aa', 'bb'].join('\n'), 6)!;
    expect([fixed.indexOf('aa'), fixed.lastIndexOf('aa'), fixed.lastIndexOf('bb'), fixed.lastIndexOf('cc'), fixed.lastIndexOf('a\nb')]).toEqual([
      0, 4, 5, 3, -1,
    ]);
    const mixed = TextColumn.of(['a', 'bbb', 'a', ''].join('\n'), 4)!;
    expect([mixed.lastIndexOf('a'), mixed.lastIndexOf('bbb'), mixed.lastIndexOf('x')]).toEqual([2, 1, -1]);
    expect(TextColumn.of('only', 1)!.lastIndexOf('only')).toBe(0);
    expect(fixed.joined).toBe('aa\nbb\naa\ncc\naa\nbb');
  });

  it('splits a column of mixed widths, and still answers the same', () => {
    const values = ['a', 'bcd', '', 'ef'];
    const column = TextColumn.of(values.join('\n'), values.length)!;
    expect(valuesOf(column)).toEqual(values);
    expect(column.indexOf('bcd')).toBe(1);
    expect(column.indexOf('')).toBe(2);
    expect(column.indexOf('b')).toBe(-1);
  });

  it('holds one value, or none', () => {
    expect(valuesOf(TextColumn.of('only', 1)!)).toEqual(['only']);
    expect(TextColumn.of('', 0)!.length).toBe(0);
    expect(TextColumn.of('', 0)!.indexOf('')).toBe(-1);
  });

  it('answers a large column from its table as a scan of the values would, repeats and blanks included', () => {
    // Past 256 values lookups go through a table of positions: every answer is checked against
    // the values' own indexOf / lastIndexOf, for ids present once, several times, never, and blanked.
    const hex = (n: number): string => n.toString(16).padStart(8, '0');
    const values = Array.from({ length: 3000 }, (_, i) => hex((i * 2654435761) % 1021));
    let column = TextColumn.of(values.join('\n'), values.length)!;
    for (const at of [5, 17, 2999, 1000]) {
      column = column.blanked(at);
      values[at] = '--------';
    }
    const asked = [...new Set(values), hex(99999), hex(1021), '--------', 'short'];
    expect(new Set(values).size).toBeLessThan(values.length / 2);
    for (const value of asked) {
      expect([value, column.indexOf(value)]).toEqual([value, values.indexOf(value)]);
      expect([value, column.lastIndexOf(value)]).toEqual([value, values.lastIndexOf(value)]);
    }
    // A blanked value is gone from the new column's table; the old column still has it.
    const before = TextColumn.of(values.join('\n'), values.length)!;
    const target = values[2500]!;
    const after = before.blanked(values.lastIndexOf(target));
    expect(before.lastIndexOf(target)).toBe(values.lastIndexOf(target));
    values[values.lastIndexOf(target)] = '--------';
    expect(after.lastIndexOf(target)).toBe(values.lastIndexOf(target));
    expect(after.indexOf(target)).toBe(values.indexOf(target));
  });

  it('refuses a string that does not hold as many values as it should', () => {
    expect(TextColumn.of('a\nb\nc', 2)).toBeNull();
    expect(TextColumn.of('ab\ncd', 3)).toBeNull();
    expect(TextColumn.of('x', 0)).toBeNull();
    // Equal widths but one value holding a newline of its own: split, and the count is wrong.
    expect(TextColumn.of('ab\nc\nd\nef', 3)).toBeNull();
  });
});
