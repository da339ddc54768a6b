/**
 * A Folio media URL in a post's Markdown becomes a responsive `<picture>`: AVIF and WebP
 * sources, the image's own format as the fallback `<img>`, every one a `srcset` of the widths
 * stored for it, and the image's size as `width`/`height` so the page does not shift while it
 * loads. All of it follows from the URL (mediaNames.ts), so rendering needs no lookup.
 */
import { escapeHtml } from '../lib/escapeHtml.js';
import { parseMediaUrl, variantFormats, variantsOf, CONTENT_TYPES, type MediaImage } from './mediaNames.js';

/** The post column: 68ch of body text (778 px in the theme's font, about 49rem), or the window less its gutters. */
export const POST_IMAGE_SIZES = '(min-width: 51.5rem) 49rem, calc(100vw - 2.5rem)';

function srcset(prefix: string, image: MediaImage, format: MediaImage['format']): string {
  return variantsOf(image)
    .filter((v) => v.format === format)
    .map((v) => `${prefix}${v.name} ${v.width}w`)
    .join(', ');
}

/** `<picture>` for a media URL, or null when `src` is not one. */
export function pictureHtml(src: string, alt: string, title: string | null): string | null {
  const media = parseMediaUrl(src);
  if (!media) return null;
  const { prefix, image } = media;
  const p = escapeHtml(prefix);
  const sizes = escapeHtml(POST_IMAGE_SIZES);
  const fallback = variantsOf(image).filter((v) => v.format === image.format);
  const largest = fallback[fallback.length - 1]!;
  const sources = variantFormats(image.format)
    .filter((format) => format !== image.format)
    .map((format) => `<source type="${CONTENT_TYPES[format]}" srcset="${srcset(p, image, format)}" sizes="${sizes}">`)
    .join('');
  const titleAttr = title ? ` title="${escapeHtml(title)}"` : '';
  return (
    `<picture>${sources}<img src="${p}${largest.name}" srcset="${srcset(p, image, image.format)}" sizes="${sizes}" ` +
    `width="${image.width}" height="${image.height}" alt="${escapeHtml(alt)}"${titleAttr} decoding="async"></picture>`
  );
}
