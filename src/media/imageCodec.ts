/**
 * The sharp (libvips) side of the image pipeline (imagePipeline.ts says what it guarantees): the
 * header check of an upload and its encodings. Plain data in and out, so it runs the same on the
 * image thread (imageWorker.ts) or, where no compiled worker exists, in place. sharp loads on
 * the first call in each thread: a server that takes no upload never maps libvips at all.
 */
import { createRequire } from 'node:module';
import type Sharp from 'sharp';
import { BadRequestError, UnsupportedMediaTypeError } from '../domain/errors.js';
import { gifIsComplete } from './gifStructure.js';
import { CONTENT_TYPES, OG_HEIGHT, OG_WIDTH, ogName, originalName, variantsOf, type ImageFormat, type MediaImage } from './mediaNames.js';

/** WebP cannot be wider or taller. */
export const MAX_SIDE = 16_383;

export interface EncodedObject {
  name: string;
  body: Buffer;
  contentType: string;
}

/** What the encodings need of the header besides the image itself: an animation's frames and timing. */
export interface Frames {
  pages?: number;
  delay?: number[];
  loop?: number;
}

export interface InspectRequest {
  bytes: Uint8Array;
  declared: ImageFormat;
  hash: string;
  maxPixels: number;
}

export interface Inspected {
  image: MediaImage;
  frames: Frames;
}

export interface EncodeRequest {
  bytes: Uint8Array;
  image: MediaImage;
  frames: Frames;
  maxPixels: number;
  timeLimitMs: number;
}

/** libvips worker threads and cache, set once per process when sharp first loads. */
export interface CodecSetup {
  threads: number;
}

const requireModule = createRequire(import.meta.url);
let loaded: typeof Sharp | undefined;

function sharpLoaded(setup: CodecSetup): typeof Sharp {
  if (!loaded) {
    loaded = requireModule('sharp') as typeof Sharp;
    loaded.concurrency(setup.threads);
    // No upload is processed twice: libvips' operation cache would only hold memory.
    loaded.cache(false);
  }
  return loaded;
}

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

/** The time budget ran out: the error says so rather than calling the image corrupt. */
class OverTimeError extends Error {}

const asBuffer = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** What the header says, checked against the format and the budget; no pixel is decoded. */
export async function inspectImage(setup: CodecSetup, request: InspectRequest): Promise<Inspected> {
  const { declared, hash, maxPixels } = request;
  const bytes = asBuffer(request.bytes);
  const sharp = sharpLoaded(setup);
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
  if (width > MAX_SIDE || height > MAX_SIDE || width * height * frames > maxPixels) {
    const size = frames > 1 ? `${frames} frames of ${width} × ${height} pixels` : `${width} × ${height} pixels`;
    throw new BadRequestError(
      `the image is ${size}; images may be at most ${MAX_SIDE} pixels on a side and ${maxPixels / 1e6} megapixels, all frames together`,
    );
  }
  if (declared === 'gif' && !gifIsComplete(bytes)) throw new BadRequestError('the GIF image could not be decoded (truncated or corrupt)');
  return {
    image: { hash, width, height, format: declared },
    frames: {
      ...(metadata.pages !== undefined ? { pages: metadata.pages } : {}),
      ...(metadata.delay ? { delay: metadata.delay } : {}),
      ...(metadata.loop !== undefined ? { loop: metadata.loop } : {}),
    },
  };
}

/** The full-size image, its variants and its og:image crop, within the time budget. */
export async function encodeImage(setup: CodecSetup, request: EncodeRequest): Promise<EncodedObject[]> {
  const { image, timeLimitMs } = request;
  const deadline = Date.now() + timeLimitMs;
  try {
    return await outputs(sharpLoaded(setup), request, deadline);
  } catch (err) {
    if (err instanceof OverTimeError || (err instanceof Error && /timeout/i.test(err.message))) {
      throw new BadRequestError(`the image took more than ${timeLimitMs / 1000} s to process; send a smaller or simpler image`, { cause: err });
    }
    // The header was fine but the pixels are not (a truncated or corrupt file).
    throw new BadRequestError(`the ${describe(image.format)} image could not be decoded (truncated or corrupt)`, { cause: err });
  }
}

/** One decode of the upload, then each output from its pixels. */
async function outputs(sharp: typeof Sharp, request: EncodeRequest, deadline: number): Promise<EncodedObject[]> {
  const { image, frames: header, maxPixels } = request;
  const bytes = asBuffer(request.bytes);
  const timed = (pipeline: Sharp.Sharp): Sharp.Sharp => {
    const left = deadline - Date.now();
    if (left <= 0) throw new OverTimeError('time budget spent');
    return pipeline.timeout({ seconds: Math.ceil(left / 1000) });
  };
  const input = { limitInputPixels: maxPixels, sequentialRead: true, failOn: 'warning' as const };
  const frames = image.format === 'gif' || image.format === 'webp' ? Math.max(1, header.pages ?? 1) : 1;
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
    frames > 1 ? { ...(header.delay ? { delay: header.delay } : {}), ...(header.loop !== undefined ? { loop: header.loop } : {}) } : null;

  // One encoding at a time, on libvips threads sized by the setup: all at once would
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
