/**
 * Uploaded images, decoded and encoded again with sharp (libvips). Nothing of the upload is
 * stored as sent: every object is a fresh encoding, which drops EXIF, GPS and other metadata,
 * and proves the bytes are the image they claim to be.
 *
 * Small files can be decompression bombs: a kilobyte-sized AVIF can declare a huge image.
 * So the cost of an upload is bounded before and while it is decoded:
 * - pixels × frames, read from the header before any pixel is (FOLIO_MEDIA_MAX_MEGAPIXELS);
 * - one decode per upload, into raw pixels every output is made from, so memory is the
 *   budget × 4 bytes;
 * - a time budget per image (FOLIO_MEDIA_TIME_LIMIT), enforced by libvips itself;
 * - images are processed one at a time, fair between accounts (fairQueue.ts): one account's
 *   uploads wait behind each other, never in front of another account's.
 *
 * libvips does the work on its own threads: the event loop only waits.
 */
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import type Sharp from 'sharp';
import { BadRequestError, UnsupportedMediaTypeError } from '../domain/errors.js';
import { FairQueue } from './fairQueue.js';
import { gifIsComplete } from './gifStructure.js';
import { CONTENT_TYPES, OG_HEIGHT, OG_WIDTH, ogName, originalName, variantsOf, type ImageFormat, type MediaImage } from './mediaNames.js';

/** Largest upload, in bytes (the HTTP layer refuses more before reading it). */
export const MAX_MEDIA_BYTES = 10 * 1024 * 1024;
/**
 * Default pixel budget: 24 megapixels over all frames, a 6000 × 4000 camera photo. Decoding and
 * encoding cost grows with the pixels, so the budget bounds the slowest accepted upload.
 */
export const DEFAULT_MAX_PIXELS = 24_000_000;
/** Default time budget of one image: well above what the slowest upload within the pixel budget takes. */
export const DEFAULT_TIME_LIMIT_MS = 20_000;
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

/** Frame delays and loop count of an animation: raw pixels do not carry them to the encoders. */
interface Animation {
  delay?: number[];
  loop?: number;
}

function encoder(pipeline: Sharp.Sharp, format: ImageFormat, animation: Animation | null): Sharp.Sharp {
  const timing = animation ? { ...(animation.delay ? { delay: animation.delay } : {}), ...(animation.loop !== undefined ? { loop: animation.loop } : {}) } : {};
  switch (format) {
    case 'jpeg':
      return pipeline.jpeg({ quality: 80, mozjpeg: true });
    case 'png':
      return pipeline.png({ compressionLevel: 8 });
    case 'webp':
      return pipeline.webp({ quality: 78, effort: 4, ...timing });
    case 'gif':
      return pipeline.gif(timing);
    case 'avif':
      return pipeline.avif({ quality: 55, effort: 2 });
  }
}

export interface ImagePipelineOptions {
  /** Images processed at once (default 1: one image keeps the libvips threads busy). */
  concurrency?: number;
  /** Images one account may have waiting; more are answered 503 (default 4). */
  perAccountWaiting?: number;
  /** Images all accounts may have waiting together (default 32). */
  totalWaiting?: number;
  /** libvips worker threads; by default one core fewer than the machine has. */
  threads?: number;
  /** Pixel budget of one upload, all frames together (default DEFAULT_MAX_PIXELS). */
  maxPixels?: number;
  /** Time budget of one upload's decoding and encoding (default DEFAULT_TIME_LIMIT_MS). */
  timeLimitMs?: number;
}

/** The time budget ran out: the error says so rather than calling the image corrupt. */
class OverTimeError extends Error {}

export class ImagePipeline {
  private loaded: typeof Sharp | undefined;
  private readonly queue: FairQueue;
  readonly maxPixels: number;
  readonly timeLimitMs: number;

  /**
   * `threads`: libvips worker threads; by default one core fewer than the machine has, so the
   * event loop always finds a free core (on two cores, one thread).
   */
  constructor(private readonly options: ImagePipelineOptions = {}) {
    this.queue = new FairQueue({
      concurrency: options.concurrency ?? 1,
      perTenantWaiting: options.perAccountWaiting ?? 4,
      totalWaiting: options.totalWaiting ?? 32,
    });
    this.maxPixels = options.maxPixels ?? DEFAULT_MAX_PIXELS;
    this.timeLimitMs = options.timeLimitMs ?? DEFAULT_TIME_LIMIT_MS;
  }

  /** sharp (and libvips) load at the warm-up after start (load), or else on the first upload. */
  private sharp(): typeof Sharp {
    if (!this.loaded) {
      this.loaded = requireModule('sharp') as typeof Sharp;
      this.loaded.concurrency(this.options.threads ?? Math.max(1, availableParallelism() - 1));
      // No upload is processed twice: libvips' operation cache would only hold memory.
      this.loaded.cache(false);
    }
    return this.loaded;
  }

  /**
   * Loads sharp now: loading it holds the event loop for a while, which the warm-up after
   * start pays while the server is idle rather than the first upload's neighbours.
   */
  load(): void {
    this.sharp();
  }

  /** Images waiting and being processed, for tests and metrics. */
  stats(): { waiting: number; running: number } {
    return this.queue.stats();
  }

  /**
   * Checks and encodes an upload. `declared` is the format its Content-Type named; the bytes
   * must be that format. `account` is the unit of fairness. Throws 400/415 errors for anything
   * that is not a usable image, 503 when the account already has several images waiting.
   */
  async encode(bytes: Buffer, declared: ImageFormat, hash: string, account = ''): Promise<EncodedImage> {
    if (bytes.length === 0) throw new BadRequestError('the body is empty; send the image bytes as the request body');
    // The header is checked before the queue: a refused image never takes an account's place.
    const { image, metadata } = await this.inspect(bytes, declared, hash);
    return this.queue.run(account, () => this.process(bytes, image, metadata));
  }

  /** What the header says, checked against the format and the budget; no pixel is decoded. */
  private async inspect(bytes: Buffer, declared: ImageFormat, hash: string): Promise<{ image: MediaImage; metadata: Sharp.Metadata }> {
    const sharp = this.sharp();
    const animated = declared === 'gif' || declared === 'webp';
    let metadata: Sharp.Metadata;
    try {
      // Only the header is read here, so no pixel limit yet: the check below names the size.
      metadata = await sharp(bytes, { animated, limitInputPixels: false }).metadata();
    } catch (err) {
      throw new BadRequestError(`the body is not a readable ${describe(declared)} image`, { cause: err });
    }
    const actual = formatOf(metadata);
    if (metadata.format === 'svg') throw new UnsupportedMediaTypeError('SVG images are not accepted: they can carry script');
    if (actual !== declared) {
      throw new BadRequestError(
        `Content-Type says ${CONTENT_TYPES[declared]} but the body is ${actual ? `a ${describe(actual)}` : `not a JPEG, PNG, WebP, GIF or AVIF`} image`,
      );
    }
    const rotated = (metadata.orientation ?? 1) >= 5;
    const frameHeight = metadata.pageHeight ?? metadata.height;
    const width = rotated ? frameHeight : metadata.width;
    const height = rotated ? metadata.width : frameHeight;
    if (!width || !height) throw new BadRequestError(`the body is not a readable ${describe(declared)} image`);
    // Only GIF and WebP are read as animations; an AVIF (a HEIF) is read as its primary image.
    const frames = animated ? Math.max(1, metadata.pages ?? 1) : 1;
    if (width > MAX_SIDE || height > MAX_SIDE || width * height * frames > this.maxPixels) {
      const size = frames > 1 ? `${frames} frames of ${width} × ${height} pixels` : `${width} × ${height} pixels`;
      throw new BadRequestError(
        `the image is ${size}; images may be at most ${MAX_SIDE} pixels on a side and ${this.maxPixels / 1e6} megapixels, all frames together`,
      );
    }
    if (declared === 'gif' && !gifIsComplete(bytes)) throw new BadRequestError('the GIF image could not be decoded (truncated or corrupt)');
    return { image: { hash, width, height, format: declared }, metadata };
  }

  private async process(bytes: Buffer, image: MediaImage, metadata: Sharp.Metadata): Promise<EncodedImage> {
    const deadline = Date.now() + this.timeLimitMs;
    const declared = image.format;
    try {
      return { image, objects: await this.outputs(this.sharp(), bytes, image, metadata, deadline) };
    } catch (err) {
      if (err instanceof OverTimeError || (err instanceof Error && /timeout/i.test(err.message))) {
        throw new BadRequestError(`the image took more than ${this.timeLimitMs / 1000} s to process; send a smaller or simpler image`, { cause: err });
      }
      // The header was fine but the pixels are not (a truncated or corrupt file).
      throw new BadRequestError(`the ${describe(declared)} image could not be decoded (truncated or corrupt)`, { cause: err });
    }
  }

  /** The full-size image, its variants and its og:image crop, from one decode of the upload. */
  private async outputs(sharp: typeof Sharp, bytes: Buffer, image: MediaImage, metadata: Sharp.Metadata, deadline: number): Promise<EncodedObject[]> {
    const timed = (pipeline: Sharp.Sharp): Sharp.Sharp => {
      const left = deadline - Date.now();
      if (left <= 0) throw new OverTimeError('time budget spent');
      return pipeline.timeout({ seconds: Math.ceil(left / 1000) });
    };
    const input = { limitInputPixels: this.maxPixels, sequentialRead: true, failOn: 'warning' as const };
    const frames = image.format === 'gif' || image.format === 'webp' ? Math.max(1, metadata.pages ?? 1) : 1;
    let source: () => Sharp.Sharp;
    let firstFrame: () => Sharp.Sharp;
    if (frames > 1) {
      // Animations are decoded per output: libvips resizes frames only of a decoded animation,
      // not of raw pixels. Their pixels × frames are within the same budget.
      source = () => sharp(bytes, { ...input, animated: true });
      firstFrame = () => sharp(bytes, input);
    } else {
      // Auto-oriented from EXIF, in sRGB, 8 bits a channel; none of the input's metadata follows.
      const { data, info } = await timed(sharp(bytes, input).rotate().toColourspace('srgb').raw({ depth: 'uchar' })).toBuffer({ resolveWithObject: true });
      const raw = { width: info.width, height: info.height, channels: info.channels };
      source = () => sharp(data, { raw });
      firstFrame = source;
    }
    const animation: Animation | null =
      frames > 1 ? { ...(metadata.delay ? { delay: metadata.delay } : {}), ...(metadata.loop !== undefined ? { loop: metadata.loop } : {}) } : null;

    // One encoding at a time, on libvips threads sized by the constructor: all at once would
    // oversubscribe the cores and leave the event loop waiting for CPU.
    const objects: EncodedObject[] = [];
    const add = async (name: string, pipeline: Sharp.Sharp, contentType: string) => objects.push({ name, body: await timed(pipeline).toBuffer(), contentType });
    await add(originalName(image), encoder(source(), image.format, animation), CONTENT_TYPES[image.format]);
    for (const variant of variantsOf(image))
      await add(variant.name, encoder(source().resize({ width: variant.width }), variant.format, animation), CONTENT_TYPES[variant.format]);
    // The og:image is the first frame.
    await add(
      ogName(image),
      firstFrame().resize(OG_WIDTH, OG_HEIGHT, { fit: 'cover', position: 'attention' }).flatten({ background: '#ffffff' }).jpeg({ quality: 82, mozjpeg: true }),
      'image/jpeg',
    );
    return objects;
  }
}
