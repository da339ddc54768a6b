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
 * libvips does the work on its own threads, on the image thread (imageThread.ts): the event
 * loop only waits, and never loads sharp.
 */
import { availableParallelism } from 'node:os';
import { BadRequestError } from '../domain/errors.js';
import { compiledScript } from '../workers/compiledScript.js';
import { FairQueue } from './fairQueue.js';
import type { EncodedObject, Frames } from './imageCodec.js';
import { ImageThread, InPlaceCodec, type ImageCodecRunner } from './imageThread.js';
import type { ImageFormat, MediaImage } from './mediaNames.js';

export type { EncodedObject } from './imageCodec.js';

/** Largest upload, in bytes (the HTTP layer refuses more before reading it). */
export const MAX_MEDIA_BYTES = 10 * 1024 * 1024;
/**
 * Default pixel budget: 24 megapixels over all frames, a 6000 × 4000 camera photo. Decoding and
 * encoding cost grows with the pixels, so the budget bounds the slowest accepted upload.
 */
export const DEFAULT_MAX_PIXELS = 24_000_000;
/** Default time budget of one image: well above what the slowest upload within the pixel budget takes. */
export const DEFAULT_TIME_LIMIT_MS = 20_000;

export interface EncodedImage {
  image: MediaImage;
  /** The full-size image first, then the variants, then the og:image crop. */
  objects: EncodedObject[];
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

export class ImagePipeline {
  private readonly queue: FairQueue;
  private readonly codec: ImageCodecRunner;
  readonly maxPixels: number;
  readonly timeLimitMs: number;

  /**
   * `threads`: libvips worker threads; by default one core fewer than the machine has, so the
   * event loop always finds a free core (on two cores, one thread).
   */
  constructor(options: ImagePipelineOptions = {}) {
    this.queue = new FairQueue({
      concurrency: options.concurrency ?? 1,
      perTenantWaiting: options.perAccountWaiting ?? 4,
      totalWaiting: options.totalWaiting ?? 32,
    });
    this.maxPixels = options.maxPixels ?? DEFAULT_MAX_PIXELS;
    this.timeLimitMs = options.timeLimitMs ?? DEFAULT_TIME_LIMIT_MS;
    const setup = { threads: options.threads ?? Math.max(1, availableParallelism() - 1) };
    const script = compiledScript('media/imageWorker');
    this.codec = script ? new ImageThread(script, setup) : new InPlaceCodec(setup);
  }

  /** Images waiting and being processed, for tests and metrics. */
  stats(): { waiting: number; running: number } {
    return this.queue.stats();
  }

  /** Whether the image thread is running (it starts with an upload). */
  get threadRunning(): boolean {
    return this.codec.running;
  }

  /** Stops the image thread if no image is in it (a server at rest, warmup/rest.ts). */
  retireIdle(): boolean {
    return this.codec.retireIdle();
  }

  close(): Promise<void> {
    return this.codec.close();
  }

  /**
   * Checks and encodes an upload. `declared` is the format its Content-Type named; the bytes
   * must be that format. `account` is the unit of fairness. Throws 400/415 errors for anything
   * that is not a usable image, 503 when the account already has several images waiting.
   */
  async encode(bytes: Buffer, declared: ImageFormat, hash: string, account = ''): Promise<EncodedImage> {
    if (bytes.length === 0) throw new BadRequestError('the body is empty; send the image bytes as the request body');
    // The header is checked before the queue: a refused image never takes an account's place.
    const { image, frames } = await this.codec.run({ kind: 'inspect', request: { bytes, declared, hash, maxPixels: this.maxPixels } });
    return this.queue.run(account, () => this.process(bytes, image, frames));
  }

  private async process(bytes: Buffer, image: MediaImage, frames: Frames): Promise<EncodedImage> {
    const request = { bytes, image, frames, maxPixels: this.maxPixels, timeLimitMs: this.timeLimitMs };
    return { image, objects: await this.codec.run({ kind: 'encode', request }) };
  }
}
