/**
 * The unsigned LEB128 varints of the stored postings (ordinal gaps and weighted frequencies):
 * seven bits a byte, low bits first, the high bit set on every byte but the last.
 */

/** Writes `value` at `at`; returns the position after it. */
export function writeVarint(out: Buffer, at: number, value: number): number {
  let v = value;
  while (v >= 0x80) {
    out[at++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  out[at++] = v;
  return at;
}

/**
 * Reads varints one after another from `at`. Past the end of the buffer a byte reads as
 * undefined, which ends a varint like a 0 byte; callers check `at` against where the run
 * should end once, after their loop, instead of on every byte.
 */
export class VarintReader {
  constructor(
    private readonly raw: Buffer,
    public at: number,
  ) {}

  next(): number {
    const raw = this.raw;
    let byte = raw[this.at++]!;
    if (byte < 0x80) return byte;
    let value = byte & 0x7f;
    let scale = 0x80;
    do {
      byte = raw[this.at++]!;
      value += (byte & 0x7f) * scale;
      scale *= 0x80;
    } while (byte >= 0x80);
    return value;
  }
}
