/**
 * Names of uploaded images and their variants, as stored under `<blog>/media/` and served at
 * `/media/…`. Everything a page needs to draw an image well is in its name, so the Markdown
 * renderer turns a media URL into `<picture>` without asking the database:
 *
 *   <hash>-<width>x<height>.<ext>           the image at full size, in its own format
 *   <hash>-<width>x<height>-<w>.<format>    a variant `w` pixels wide (avif, webp, own format)
 *   <hash>-<width>x<height>-og.jpg          1200 × 630, cropped, for og:image
 *
 * `hash` is the first 20 hex digits of the SHA-256 of the uploaded bytes (content-addressed:
 * the same upload is stored once, and a name never changes meaning, so objects are immutable).
 */

export const MEDIA_DIR = 'media';

/** Widths drawn for `srcset`: phones, tablets and the post column, desktop high-density. */
export const VARIANT_WIDTHS = [480, 960, 1600] as const;

export const OG_WIDTH = 1200;
export const OG_HEIGHT = 630;

export type ImageFormat = 'jpeg' | 'png' | 'webp' | 'gif' | 'avif';

export const CONTENT_TYPES: Readonly<Record<ImageFormat, string>> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  gif: 'image/gif',
  avif: 'image/avif',
};

const EXTENSIONS: Readonly<Record<ImageFormat, string>> = { jpeg: 'jpg', png: 'png', webp: 'webp', gif: 'gif', avif: 'avif' };
const BY_EXTENSION = new Map(Object.entries(EXTENSIONS).map(([format, ext]) => [ext, format as ImageFormat]));

export function formatOfContentType(contentType: string): ImageFormat | null {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  const found = Object.entries(CONTENT_TYPES).find(([, t]) => t === type);
  return found ? (found[0] as ImageFormat) : null;
}

export interface MediaImage {
  hash: string;
  width: number;
  height: number;
  format: ImageFormat;
}

export interface MediaVariant {
  width: number;
  height: number;
  format: ImageFormat;
  name: string;
}

const stem = (image: MediaImage): string => `${image.hash}-${image.width}x${image.height}`;

/** File name of the full-size image. */
export function originalName(image: MediaImage): string {
  return `${stem(image)}.${EXTENSIONS[image.format]}`;
}

export function ogName(image: Pick<MediaImage, 'hash' | 'width' | 'height'>): string {
  return `${image.hash}-${image.width}x${image.height}-og.jpg`;
}

/**
 * Formats of the variants, best first: AVIF and WebP for browsers that take them, the image's
 * own format for the rest. Animated GIFs keep their frames in WebP and GIF only (AVIF animation
 * support in browsers and libvips is uneven).
 */
export function variantFormats(format: ImageFormat): ImageFormat[] {
  const modern: ImageFormat[] = format === 'gif' ? ['webp'] : ['avif', 'webp'];
  return modern.includes(format) ? modern : [...modern, format];
}

/** Variant widths of an image: the standard ones below its width, and its own width when it is within them. */
export function variantWidths(width: number): number[] {
  const widths: number[] = VARIANT_WIDTHS.filter((w) => w < width);
  if (width <= VARIANT_WIDTHS[VARIANT_WIDTHS.length - 1]!) widths.push(width);
  return widths;
}

export function variantsOf(image: MediaImage): MediaVariant[] {
  return variantWidths(image.width).flatMap((width) =>
    variantFormats(image.format).map((format) => ({
      width,
      height: Math.max(1, Math.round((image.height * width) / image.width)),
      format,
      name: `${stem(image)}-${width}.${EXTENSIONS[format]}`,
    })),
  );
}

const NAME = /^([0-9a-f]{20})-([1-9][0-9]{0,4})x([1-9][0-9]{0,4})\.(jpg|png|webp|gif|avif)$/;

/** The image a full-size media URL or path names (`…/media/<hash>-<w>x<h>.<ext>`), else null. */
export function parseMediaUrl(url: string): { prefix: string; image: MediaImage } | null {
  const at = url.lastIndexOf(`/${MEDIA_DIR}/`);
  if (at < 0) return null;
  const match = NAME.exec(url.slice(at + MEDIA_DIR.length + 2));
  if (!match) return null;
  const [, hash, width, height, ext] = match;
  return {
    prefix: url.slice(0, at + MEDIA_DIR.length + 2),
    image: { hash: hash!, width: Number(width), height: Number(height), format: BY_EXTENSION.get(ext!)! },
  };
}

/** Hashes of the media images a post's Markdown or og_image names (for the post_media table). */
export function mediaHashesIn(text: string): string[] {
  const found = new Set<string>();
  // `folio-media:` is how stored posts name their blog's own images (mediaRefs.ts).
  for (const match of text.matchAll(/(?:\/media\/|folio-media:)([0-9a-f]{20})-[1-9][0-9]{0,4}x[1-9][0-9]{0,4}[.-]/g)) found.add(match[1]!);
  return [...found];
}

/** For og:image and feeds: a media URL's 1200 × 630 crop; any other URL as it is. */
export function socialImageOf(url: string): { url: string; width?: number; height?: number } {
  const media = parseMediaUrl(url);
  return media ? { url: `${media.prefix}${ogName(media.image)}`, width: OG_WIDTH, height: OG_HEIGHT } : { url };
}

/** For list thumbnails (drawn 320 px wide): a media URL's narrowest variant in its own format. */
export function thumbnailOf(url: string): string {
  const media = parseMediaUrl(url);
  if (!media) return url;
  const own = variantsOf(media.image).find((v) => v.format === media.image.format)!;
  return `${media.prefix}${own.name}`;
}

/** The image fields of a stored media row (or anything else carrying them), without the rest. */
export const imageOf = (media: MediaImage): MediaImage => ({ hash: media.hash, width: media.width, height: media.height, format: media.format });

/** Every object stored for an image, as names under the blog's `media/`. */
export function mediaNames(media: MediaImage): string[] {
  const image = imageOf(media);
  return [originalName(image), ...variantsOf(image).map((v) => v.name), ogName(image)];
}
