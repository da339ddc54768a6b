/** Real images for the media suites, drawn with sharp (the library the server decodes them with). */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';

/**
 * Drawing a bomb takes sharp seconds (a 7000 × 7000 AVIF about 5 s) and several suites send the
 * same ones: each is drawn once per machine and kept under the temp dir by its name.
 */
async function drawnOnce(name: string, draw: () => Promise<Buffer>): Promise<Buffer> {
  const dir = join(tmpdir(), 'folio-test-images-v1');
  const path = join(dir, name);
  if (existsSync(path)) return readFileSync(path);
  const bytes = await draw();
  mkdirSync(dir, { recursive: true });
  // Written aside and renamed, so a parallel suite never reads half a file.
  const aside = `${path}.${process.pid}.tmp`;
  writeFileSync(aside, bytes);
  renameSync(aside, path);
  return bytes;
}

export type Format = 'jpeg' | 'png' | 'webp' | 'gif' | 'avif';

const drawing = (width: number, height: number): Buffer =>
  Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="#2b4c7e"/>` +
      `<circle cx="${width / 2}" cy="${height / 2}" r="${Math.min(width, height) / 3}" fill="#e8a33d"/></svg>`,
  );

/** A picture in `format`, with EXIF (a copyright and a GPS position) where the format carries it. */
export async function image(format: Format, width: number, height: number): Promise<Buffer> {
  const base = sharp(drawing(width, height)).withExif({ IFD0: { Copyright: 'Folio test' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '37/1 33/1 0/1' } });
  switch (format) {
    case 'jpeg':
      return base.jpeg().toBuffer();
    case 'png':
      return base.png().toBuffer();
    case 'webp':
      return base.webp().toBuffer();
    case 'avif':
      return base.avif().toBuffer();
    case 'gif': {
      // Two frames: an animated GIF.
      const frames = await Promise.all([sharp(drawing(width, height)).png().toBuffer(), sharp(drawing(width, height)).negate().png().toBuffer()]);
      return sharp(frames, { join: { animated: true } })
        .gif({ delay: 200 })
        .toBuffer();
    }
  }
}

const chunk = (type: string, data: Buffer): Buffer => {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
};

/** A PNG whose header claims `width` × `height` pixels, with a few bytes of pixel data behind it. */
export function pngHeaderOnly(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.writeUInt8(8, 8); // bit depth
  ihdr.writeUInt8(2, 9); // RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.alloc(64))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * A real decompression bomb: a valid PNG of `side` × `side` black pixels, a few hundred KB that
 * would decode to gigabytes.
 */
export async function pngBomb(side: number): Promise<Buffer> {
  return sharp({ create: { width: side, height: side, channels: 3, background: '#000' }, limitInputPixels: false })
    .png({ compressionLevel: 9 })
    .toBuffer();
}

/**
 * Decompression bombs the audit sent, drawn with sharp: one flat colour compresses a huge
 * canvas into a few kilobytes (a 7000 × 7000 AVIF is about 1.3 KB).
 */
export async function avifBomb(width = 7000, height = 7000): Promise<Buffer> {
  return drawnOnce(`bomb-${width}x${height}.avif`, () =>
    sharp({ create: { width, height, channels: 3, background: '#000' }, limitInputPixels: false })
      .avif({ effort: 0 })
      .toBuffer(),
  );
}

export async function webpBomb(width = 16_383, height = 3050): Promise<Buffer> {
  return drawnOnce(`bomb-${width}x${height}.webp`, () =>
    sharp({ create: { width, height, channels: 3, background: '#000' }, limitInputPixels: false })
      .webp({ effort: 0 })
      .toBuffer(),
  );
}

/** An animated GIF of `frames` frames of `side` × `side`, black and white in turn (so none is merged). */
export async function gifBomb(frames: number, side: number): Promise<Buffer> {
  return drawnOnce(`bomb-${frames}x${side}.gif`, () => drawGifBomb(frames, side));
}

function drawGifBomb(frames: number, side: number): Promise<Buffer> {
  const pixels = Buffer.alloc(side * side * frames);
  for (let frame = 1; frame < frames; frame += 2) pixels.fill(255, frame * side * side, (frame + 1) * side * side);
  return sharp(pixels, { raw: { width: side, height: side * frames, channels: 1, pageHeight: side }, limitInputPixels: false })
    .gif({ delay: 100, colours: 2, effort: 1, dither: 0 })
    .toBuffer();
}

/** An animated GIF cut short: its last frame's data and the trailer are missing. */
export async function truncatedGif(): Promise<Buffer> {
  const whole = await image('gif', 300, 200);
  return whole.subarray(0, whole.length - 40);
}
