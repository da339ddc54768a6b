/**
 * Uploaded images, decoded and encoded again with sharp (libvips). Nothing of the upload is
 * stored as sent: every object is a fresh encoding, which drops EXIF, GPS and other metadata,
 * and proves the bytes are the image they claim to be.
 *
 * libvips does the work on its own threads: the event loop only waits. Images are processed one
 * at a time (a 4000 × 3000 JPEG keeps two cores busy for about a second); a short queue waits
 * behind, and past it uploads are refused with a 503 rather than piling up memory.
 */
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import type Sharp from 'sharp';
import { BadRequestError, ServiceUnavailableError, UnsupportedMediaTypeError } from '../errors.js';
import { CONTENT_TYPES, OG_HEIGHT, OG_WIDTH, ogName, originalName, variantsOf, type ImageFormat, type MediaImage } from './mediaNames.js';

/** Largest upload, in bytes (the HTTP layer refuses more before reading it). */
export const MAX_MEDIA_BYTES = 10 * 1024 * 1024;
/** 50 megapixels: any camera photo; refuses decompression bombs before they are decoded. */
export const MAX_PIXELS = 50_000_000;
/** WebP cannot be wider or taller. */
export const MAX_SIDE = 16_383;

export interface EncodedObject {
  name: string;
  body: Buffer;
  contentType: string;
}

export interface EncodedImage {
  image: MediaImage;
  /** The full-size image first, then the variants, then the og:image crop. */
  objects: EncodedObject[];
}

const requireModule = createRequire(import.meta.url);

const FORMAT_NAMES: Readonly<Record<string, ImageFormat>> = { jpeg: 'jpeg', png: 'png', webp: 'webp', gif: 'gif' };

const describe = (format: ImageFormat): string => ({ jpeg: 'JPEG', png: 'PNG', webp: 'WebP', gif: 'GIF', avif: 'AVIF' })[format];

/** What sharp read from the header, as one of our formats (AVIF is a HEIF with AV1 inside). */
function formatOf(metadata: Sharp.Metadata): ImageFormat | null {
  if (metadata.format === 'heif') return metadata.compression === 'av1' ? 'avif' : null;
  return FORMAT_NAMES[metadata.format ?? ''] ?? null;
}

function encoder(pipeline: Sharp.Sharp, format: ImageFormat): Sharp.Sharp {
  switch (format) {
    case 'jpeg':
      return pipeline.jpeg({ quality: 80, mozjpeg: true });
    case 'png':
      return pipeline.png({ compressionLevel: 8 });
    case 'webp':
      return pipeline.webp({ quality: 78, effort: 4 });
    case 'gif':
      return pipeline.gif();
    case 'avif':
      return pipeline.avif({ quality: 55, effort: 2 });
  }
}

export class ImagePipeline {
  private running = 0;
  private loaded: typeof Sharp | undefined;
  private readonly waiting: (() => void)[] = [];

  /**
   * `threads`: libvips worker threads; by default one core fewer than the machine has, so the
   * event loop always finds a free core (on two cores, one thread).
   */
  constructor(private readonly options: { concurrency?: number; queueLimit?: number; threads?: number } = {}) {}

  /** sharp (and libvips) load on the first upload: most servers start without needing them. */
  private sharp(): typeof Sharp {
    if (!this.loaded) {
      this.loaded = requireModule('sharp') as typeof Sharp;
      this.loaded.concurrency(this.options.threads ?? Math.max(1, availableParallelism() - 1));
    }
    return this.loaded;
  }

  /**
   * Checks and encodes an upload. `declared` is the format its Content-Type named; the bytes
   * must be that format. Throws 400/415 errors for anything that is not a usable image.
   */
  async encode(bytes: Buffer, declared: ImageFormat, hash: string): Promise<EncodedImage> {
    if (bytes.length === 0) throw new BadRequestError('the body is empty; send the image bytes as the request body');
    return this.queued(async () => {
      const sharp = this.sharp();
      const input = { limitInputPixels: MAX_PIXELS, animated: declared === 'gif' || declared === 'webp' };
      let metadata: Sharp.Metadata;
      try {
        // Only the header is read here, so no pixel limit yet: the check below names the size.
        metadata = await sharp(bytes, { ...input, limitInputPixels: false }).metadata();
      } catch (err) {
        throw new BadRequestError(`the body is not a readable ${describe(declared)} image`, { cause: err });
      }
      const actual = formatOf(metadata);
      if (metadata.format === 'svg') throw new UnsupportedMediaTypeError('SVG images are not accepted: they can carry script');
      if (actual !== declared) {
        throw new BadRequestError(`Content-Type says ${CONTENT_TYPES[declared]} but the body is ${actual ? `a ${describe(actual)}` : `not a JPEG, PNG, WebP, GIF or AVIF`} image`);
      }
      const rotated = (metadata.orientation ?? 1) >= 5;
      const width = rotated ? metadata.pageHeight ?? metadata.height : metadata.width;
      const height = rotated ? metadata.width : metadata.pageHeight ?? metadata.height;
      if (!width || !height) throw new BadRequestError(`the body is not a readable ${describe(declared)} image`);
      if (width > MAX_SIDE || height > MAX_SIDE || width * height > MAX_PIXELS) {
        throw new BadRequestError(`the image is ${width} × ${height} pixels; images may be at most ${MAX_SIDE} pixels on a side and ${MAX_PIXELS / 1e6} megapixels`);
      }
      const image: MediaImage = { hash, width, height, format: declared };
      // Auto-oriented from EXIF, then written without any of the input's metadata.
      const base = sharp(bytes, input).rotate();
      try {
        // One encoding at a time, on libvips threads sized by the constructor: run all at once,
        // eleven encodings oversubscribed both cores and the event loop waited 600 ms for CPU.
        const objects: EncodedObject[] = [];
        const add = async (name: string, pipeline: Sharp.Sharp, contentType: string) => objects.push({ name, body: await pipeline.toBuffer(), contentType });
        await add(originalName(image), encoder(base.clone(), declared), CONTENT_TYPES[declared]);
        for (const variant of variantsOf(image)) await add(variant.name, encoder(base.clone().resize({ width: variant.width }), variant.format), CONTENT_TYPES[variant.format]);
        await add(
          ogName(image),
          sharp(bytes, { limitInputPixels: MAX_PIXELS }).rotate().resize(OG_WIDTH, OG_HEIGHT, { fit: 'cover', position: 'attention' }).flatten({ background: '#ffffff' }).jpeg({ quality: 82, mozjpeg: true }),
          'image/jpeg',
        );
        return { image, objects };
      } catch (err) {
        // The header was fine but the pixels are not (a truncated or corrupt file).
        throw new BadRequestError(`the ${describe(declared)} image could not be decoded (truncated or corrupt)`, { cause: err });
      }
    });
  }

  private async queued<T>(work: () => Promise<T>): Promise<T> {
    if (this.running < (this.options.concurrency ?? 1)) this.running++;
    else if (this.waiting.length >= (this.options.queueLimit ?? 8)) throw new ServiceUnavailableError('too many images are being processed; try again shortly', { retryAfter: 5 });
    // A finishing image hands its slot straight to the next in line.
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
