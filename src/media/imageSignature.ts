/**
 * Whether the first bytes of an object are those of an image of this format (its magic number).
 * `folio site verify` reads only these of every stored image: a truncated or overwritten object
 * (an empty file, an HTML error page, another format) is told from an image without reading or
 * decoding the image itself. The bytes cannot be checked against the name's hash: that hashes the
 * upload, and the stored objects, the full-size one included, are encodings made from it.
 */
import type { ImageFormat } from './mediaNames.js';

/** Bytes read from each object: enough for every format's signature (AVIF's brand ends at 12). */
export const SIGNATURE_BYTES = 12;

export function hasImageSignature(head: Buffer, format: ImageFormat): boolean {
  const ascii = (start: number, end: number): string => head.subarray(start, end).toString('latin1');
  switch (format) {
    case 'jpeg':
      return head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff;
    case 'png':
      return head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    case 'gif':
      return ascii(0, 6) === 'GIF87a' || ascii(0, 6) === 'GIF89a';
    case 'webp':
      return ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP';
    case 'avif':
      return ascii(4, 8) === 'ftyp' && ['avif', 'avis'].includes(ascii(8, 12));
  }
}
