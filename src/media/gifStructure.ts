/**
 * Whether a GIF's block structure runs to its trailer. libvips decodes a GIF cut short without
 * an error or a warning (the frames it has, the rest blank or missing), so a truncated upload
 * would be stored as a different image than the author has; walking the blocks is cheap (no
 * pixel is decoded) and finds the cut.
 */
const TRAILER = 0x3b;
const EXTENSION = 0x21;
const IMAGE = 0x2c;

/** Offset past a run of data sub-blocks starting at `at` (the 0 terminator included), or -1. */
function skipSubBlocks(bytes: Uint8Array, at: number): number {
  let i = at;
  while (i < bytes.length) {
    const size = bytes[i]!;
    if (size === 0) return i + 1;
    i += size + 1;
  }
  return -1;
}

const colourTableBytes = (flags: number): number => (flags & 0x80 ? 3 * (1 << ((flags & 0x07) + 1)) : 0);

export function gifIsComplete(bytes: Uint8Array): boolean {
  // Header (6) and logical screen descriptor (7), then the global colour table.
  if (bytes.length < 13) return false;
  let i = 13 + colourTableBytes(bytes[10]!);
  while (i < bytes.length) {
    const block = bytes[i]!;
    if (block === TRAILER) return true;
    if (block === EXTENSION) {
      i = skipSubBlocks(bytes, i + 2);
    } else if (block === IMAGE) {
      if (i + 10 > bytes.length) return false;
      // Descriptor (10 with its introducer), local colour table, LZW code size, image data.
      i = skipSubBlocks(bytes, i + 10 + colourTableBytes(bytes[i + 9]!) + 1);
    } else {
      return false;
    }
    if (i < 0) return false;
  }
  return false;
}
