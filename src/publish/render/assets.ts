/**
 * Theme assets (the stylesheet and anything else under templates/assets/), published under
 * `<blog>/assets/` with a content hash in the name so they can be cached for a year.
 */
import { createHash } from 'node:crypto';
import { extname } from 'node:path';
import type { SiteObject } from '../../storage/siteStore.js';
import { CACHE_CONTROL_ASSET, CONTENT_TYPES } from '../../domain/cacheHeaders.js';
import { assetKey } from './renderPaths.js';

export interface ThemeAsset {
  /** Source name inside templates/assets/, e.g. `site.css`. */
  name: string;
  /** Published name with the content hash, e.g. `site.3f9a1c2b.css`. */
  fileName: string;
  body: Buffer;
  contentType: string;
}

const TYPES_BY_EXTENSION: Record<string, string> = {
  '.css': CONTENT_TYPES.css,
  '.js': CONTENT_TYPES.js,
  '.svg': CONTENT_TYPES.svg,
  '.woff2': CONTENT_TYPES.woff2,
  '.png': CONTENT_TYPES.png,
  '.ico': CONTENT_TYPES.ico,
};

/** `site.css` + body → `site.<first 8 hex of sha256>.css`. */
export function hashedFileName(name: string, body: Buffer | string): string {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 8);
  const extension = extname(name);
  return `${name.slice(0, name.length - extension.length)}.${hash}${extension}`;
}

export function createThemeAsset(name: string, body: Buffer): ThemeAsset {
  const contentType = TYPES_BY_EXTENSION[extname(name).toLowerCase()];
  if (!contentType) throw new Error(`theme asset ${name}: unsupported file type`);
  return { name, fileName: hashedFileName(name, body), body, contentType };
}

/**
 * The blog's asset objects. Their names change only when their content does. (Given the slug
 * and the theme's assets rather than a RenderContext: the context depends on the theme, which
 * depends on this file.)
 */
export function siteAssets(blogSlug: string, assets: readonly ThemeAsset[]): SiteObject[] {
  return assets.map((asset) => ({
    key: assetKey(blogSlug, asset.fileName),
    body: asset.body,
    contentType: asset.contentType,
    cacheControl: CACHE_CONTROL_ASSET,
  }));
}
