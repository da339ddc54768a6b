/**
 * A column of values (post ids, dates) kept as the "\n"-joined string it was stored as: a saved
 * listing's columns, the static search index's ids. Splitting a large blog's column would make a
 * string per value, which the garbage collector must then carry on the very publish they were
 * read for; cut from one long string, a value exists only while a page or a lookup uses it.
 * Values of one width (UUIDs and ISO dates, which is what Folio stores) are cut out by position;
 * a column of mixed widths (tests, older states) is split once.
 *
 * A large column is looked up by value through a table of positions made on its first lookup
 * (hash of the value → position): a scan of a 100,000-post blog's ids for a new post's id, which
 * every publish did (the listing's `find`, the static index's `kill`), took about 1 ms of the
 * event loop, the table 4 bytes a slot and one pass over the string.
 */
export class TextColumn {
  /** Positions + 1 by hash of the value (0: empty), open addressing; made by the first lookup of a large column. */
  private slots: Int32Array | null = null;

  private constructor(
    /** The values joined by "\n", as stored. */
    readonly joined: string,
    /** Width of every value, or -1 when they differ (then `values` holds them). */
    private readonly width: number,
    private readonly values: readonly string[] | null,
    readonly length: number,
  ) {}

  /** The column of `length` values, or null when the string does not hold that many. */
  static of(joined: string, length: number): TextColumn | null {
    if (length === 0) return joined === '' ? new TextColumn('', 0, null, 0) : null;
    const width = length === 1 ? joined.length : joined.indexOf('\n');
    if (width >= 0 && joined.length === length * (width + 1) - 1 && separatorsAt(joined, width + 1)) {
      return new TextColumn(joined, width, null, length);
    }
    const values = joined.split('\n');
    return values.length === length ? new TextColumn(joined, -1, values, length) : null;
  }

  at(index: number): string {
    if (this.values) return this.values[index]!;
    const start = index * (this.width + 1);
    return this.joined.slice(start, start + this.width);
  }

  /** Where `value` is first, or -1. No value is made on the way. */
  indexOf(value: string): number {
    if (this.values) return this.values.indexOf(value);
    if (this.length === 0 || value.length !== this.width) return -1;
    if (this.hashed(value)) return this.lookup(value, false);
    const step = this.width + 1;
    for (let at = this.joined.indexOf(value); at >= 0; at = this.joined.indexOf(value, at + 1)) {
      if (at % step === 0) return at / step;
    }
    return -1;
  }

  /**
   * The same column with value `index` blanked: dashes of its width (a column of one width keeps
   * it, and is spliced, not split), or '' in a column of mixed widths. A blank never equals a value
   * Folio stores.
   */
  blanked(index: number): TextColumn {
    if (this.values) {
      const values = [...this.values];
      values[index] = '';
      return new TextColumn(values.join('\n'), -1, values, this.length);
    }
    const start = index * (this.width + 1);
    const joined = this.joined.slice(0, start) + '-'.repeat(this.width) + this.joined.slice(start + this.width);
    return new TextColumn(joined, this.width, null, this.length);
  }

  /**
   * Where `value` is last, or -1. A large column answers from its table; a small one by forward
   * scans: V8's String indexOf skips ahead on a long pattern where lastIndexOf compares at every
   * position, about 4× slower through a column that lacks the value (a new post's, the usual case).
   */
  lastIndexOf(value: string): number {
    if (this.values) return this.values.lastIndexOf(value);
    if (this.length === 0 || value.length !== this.width) return -1;
    if (this.hashed(value)) return this.lookup(value, true);
    const step = this.width + 1;
    let last = -1;
    for (let at = this.joined.indexOf(value); at >= 0; at = this.joined.indexOf(value, at + 1)) {
      if (at % step === 0) last = at / step;
    }
    return last;
  }

  /**
   * Whether `value` (of the column's width) is looked up in the table. A blank (dashes, see
   * `blanked`) is not in the table: a column's many blanks would be one long run of slots that
   * every lookup hashed near them walks through; nobody looks for one but the tests.
   */
  private hashed(value: string): boolean {
    return this.length >= HASHED_FROM && !blankAt(value, 0, this.width);
  }

  /** The first (or last) position holding `value`, from the table: every slot of its run is checked, so repeated values are found whatever order their slots are in. */
  private lookup(value: string, last: boolean): number {
    const slots = (this.slots ??= this.positions());
    const mask = slots.length - 1;
    const step = this.width + 1;
    let found = -1;
    for (let slot = hashAt(value, 0, this.width) & mask; slots[slot] !== 0; slot = (slot + 1) & mask) {
      const index = slots[slot]! - 1;
      if ((found < 0 || (last ? index > found : index < found)) && this.joined.startsWith(value, index * step)) found = index;
    }
    return found;
  }

  /** The table: at most half full, hashed straight from the joined string. */
  private positions(): Int32Array {
    let size = 1;
    while (size < 2 * this.length) size *= 2;
    const slots = new Int32Array(size);
    const mask = size - 1;
    const step = this.width + 1;
    for (let index = 0; index < this.length; index++) {
      const start = index * step;
      if (blankAt(this.joined, start, this.width)) continue;
      let slot = hashAt(this.joined, start, this.width) & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = index + 1;
    }
    return slots;
  }
}

/** Columns shorter than this are scanned: the table would cost more than it saves. */
const HASHED_FROM = 256;

/** FNV-1a of `width` characters of `text` from `start`. */
function hashAt(text: string, start: number, width: number): number {
  let hash = 0x811c9dc5;
  for (let at = start; at < start + width; at++) hash = Math.imul(hash ^ text.charCodeAt(at), 0x01000193);
  return hash >>> 0;
}

/** Whether the `width` characters of `text` from `start` are all dashes (a blanked value). */
function blankAt(text: string, start: number, width: number): boolean {
  for (let at = start; at < start + width; at++) if (text.charCodeAt(at) !== 45) return false;
  return width > 0;
}

/** Whether every `step`th character from `step - 1` on is a newline, and no other one is. */
function separatorsAt(joined: string, step: number): boolean {
  for (let at = step - 1; at < joined.length; at += step) if (joined.charCodeAt(at) !== 10) return false;
  // A value holding a newline of its own would shift the rest; with equal widths it cannot
  // hide, but a count keeps the check honest for any input.
  let newlines = 0;
  for (let at = joined.indexOf('\n'); at >= 0; at = joined.indexOf('\n', at + 1)) newlines++;
  return newlines === Math.floor(joined.length / step);
}
