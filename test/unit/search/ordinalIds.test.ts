import { describe, expect, it } from 'vitest';
import { ID_BLOCK, OrdinalIds } from '../../../src/search/static/ordinalIds.js';

/** Ids of one width, as Folio's UUIDs are. */
const idOf = (n: number): string => `p${String(n).padStart(6, '0')}`;
const range = (from: number, to: number): string[] => Array.from({ length: to - from }, (_, i) => idOf(from + i));

/** Stores the changed blocks under `tag` and reads the whole column back as stored blocks would hold it. */
function storeAndRead(ids: OrdinalIds, tag: string, files: Map<number, { joined: string; tag: string }>): OrdinalIds {
  for (const { block, joined } of ids.changed()) files.set(block, { joined, tag });
  ids.stored(tag);
  return OrdinalIds.fromBlocks(
    [...files.keys()].sort((a, b) => a - b).map((block) => files.get(block)!),
    ids.length,
  )!;
}

describe('OrdinalIds', () => {
  it('hands out ordinals after the stored ones and finds the last of each id, across blocks', () => {
    const ids = OrdinalIds.parse(['aa', 'bb', 'cc'].join('\n'), 3)!;
    expect(ids.push('bb')).toBe(3);
    expect(ids.push('dd')).toBe(4);
    expect([0, 1, 2, 3, 4].map((ordinal) => ids.at(ordinal))).toEqual(['aa', 'bb', 'cc', 'bb', 'dd']);
    expect(['aa', 'bb', 'cc', 'dd', 'ee'].map((id) => ids.lastOrdinalOf(id))).toEqual([0, 3, 2, 4, -1]);

    const big = OrdinalIds.of(range(0, ID_BLOCK + 10));
    expect(big.length).toBe(ID_BLOCK + 10);
    expect(big.at(ID_BLOCK + 3)).toBe(idOf(ID_BLOCK + 3));
    expect(big.lastOrdinalOf(idOf(7))).toBe(7);
    // The same id again in a later block: its last ordinal is the later one.
    expect(big.push(idOf(7))).toBe(ID_BLOCK + 10);
    expect(big.lastOrdinalOf(idOf(7))).toBe(ID_BLOCK + 10);
  });

  it('stores only the blocks a change touched, under a new tag, naming the file each replaces', () => {
    const files = new Map<number, { joined: string; tag: string }>();
    const ids = OrdinalIds.of(range(0, 2 * ID_BLOCK + 5));
    expect(ids.changed().map((c) => [c.block, c.replaces])).toEqual([
      [0, null],
      [1, null],
      [2, null],
    ]);
    const read = storeAndRead(ids, 'r1', files);
    expect(ids.changed()).toEqual([]);
    expect(ids.tags()).toEqual(['r1', 'r1', 'r1']);
    expect(read.at(2 * ID_BLOCK + 4)).toBe(idOf(2 * ID_BLOCK + 4));

    // A publish: one ordinal handed out at the end, one post edited in the first block.
    read.push(idOf(99_999));
    read.clear(3);
    expect(read.changed().map((c) => [c.block, c.replaces])).toEqual([
      [0, 'r1'],
      [2, 'r1'],
    ]);
    expect(read.tags()).toEqual([null, 'r1', null]);
    const again = storeAndRead(read, 'r2', files);
    expect(read.tags()).toEqual(['r2', 'r1', 'r2']);
    expect(again.lastOrdinalOf(idOf(3))).toBe(-1);
    expect(again.lastOrdinalOf(idOf(99_999))).toBe(2 * ID_BLOCK + 5);
    expect(files.get(0)!.joined.split('\n')[3]).toBe('-------');

    // A full last block: the next ordinal starts a new one, and only it is stored.
    const full = OrdinalIds.of(range(0, ID_BLOCK));
    storeAndRead(full, 'a', new Map());
    full.push('x'.repeat(7));
    expect(full.changed().map((c) => [c.block, c.joined, c.replaces])).toEqual([[1, 'xxxxxxx', null]]);
  });

  it('forgets the id of a cleared ordinal, stored or handed out since', () => {
    const ids = OrdinalIds.parse(['aa', 'bb', 'cc'].join('\n'), 3)!;
    ids.push('dd');
    ids.clear(1);
    ids.clear(3);
    expect(['aa', 'bb', 'cc', 'dd'].map((id) => ids.lastOrdinalOf(id))).toEqual([0, -1, 2, -1]);
    expect(ids.changed()[0]!.joined).toBe('aa\n--\ncc\n--');
    // An edited post: its old ordinal cleared, the same id handed out again.
    ids.clear(0);
    expect(ids.push('aa')).toBe(4);
    expect(ids.lastOrdinalOf('aa')).toBe(4);
    expect(ids.changed()[0]!.joined).not.toMatch(/^aa/);
    // A column of mixed widths (an older state) blanks to ''.
    const legacy = OrdinalIds.of(['a1', '', 'c33']);
    legacy.changed();
    legacy.clear(2);
    expect(legacy.changed()[0]!.joined).toBe('a1\n\n');
  });

  it('starts empty or from a list, and refuses blocks or a column of another length', () => {
    const empty = OrdinalIds.of([]);
    expect(empty.length).toBe(0);
    expect(empty.changed()).toEqual([]);
    expect(empty.push('x')).toBe(0);
    expect(empty.changed()[0]!.joined).toBe('x');
    const legacy = OrdinalIds.of(['a1', '', 'c3']); // a dead ordinal of an older state: ''
    expect(legacy.lastOrdinalOf('c3')).toBe(2);
    expect(OrdinalIds.parse(legacy.changed()[0]!.joined, 3)!.at(1)).toBe('');
    expect(OrdinalIds.parse('a\nb', 3)).toBeNull();
    expect(OrdinalIds.fromBlocks([{ joined: 'a\nb', tag: 't' }], 3)).toBeNull();
    // Two blocks where the count needs one, and a first block that is not full.
    expect(
      OrdinalIds.fromBlocks(
        [
          { joined: 'a', tag: 't' },
          { joined: 'b', tag: 't' },
        ],
        2,
      ),
    ).toBeNull();
    expect(OrdinalIds.fromBlocks([], 0)!.length).toBe(0);
  });
});
