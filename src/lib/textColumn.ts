/**
 * A column of values (post ids, dates) kept as the "\n"-joined string it was stored as: a saved
 * listing's columns, the static search index's ids. Splitting a large blog's column would make a
 * string per value, which the garbage collector must then carry on the very publish they were
 * read for; cut from one long string, a value exists only while a page or a lookup uses it.
 * Values of one width (UUIDs and ISO dates, which is what Folio stores) are cut out by position;
 * a column of mixed widths (tests, older states) is split once.
 */
export class TextColumn {
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

  /** Where `value` is, or -1: a scan of the joined string, no value made on the way. */
  indexOf(value: string): number {
    if (this.values) return this.values.indexOf(value);
    if (this.length === 0 || value.length !== this.width) return -1;
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
   * Where `value` is last, or -1. Found by forward scans: V8's String indexOf skips ahead on a
   * long pattern where lastIndexOf compares at every position, about 4× slower through a column
   * of 18,000 ids that lacks the value (a new post's, the usual case).
   */
  lastIndexOf(value: string): number {
    if (this.values) return this.values.lastIndexOf(value);
    if (this.length === 0 || value.length !== this.width) return -1;
    const step = this.width + 1;
    let last = -1;
    for (let at = this.joined.indexOf(value); at >= 0; at = this.joined.indexOf(value, at + 1)) {
      if (at % step === 0) last = at / step;
    }
    return last;
  }
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
