/**
 * How large a request body may be, by route, for everything that reads or refuses bodies: the
 * JSON parser, the upload reader and the `Expect: 100-continue` answer of httpServer.ts (which
 * runs before any route). JSON bodies everywhere, except the uploads listed here, whose bodies
 * are raw bytes.
 */
import { MAX_MEDIA_BYTES } from '../media/imagePipeline.js';

export const MAX_BODY_BYTES = 2 * 1024 * 1024;

export interface UploadRoute {
  method: string;
  /** Full path, without parameters. */
  path: string;
  maxBytes: number;
  /** For the 413 message. */
  limitText: string;
}

export const UPLOAD_ROUTES: readonly UploadRoute[] = [{ method: 'POST', path: '/v1/media', maxBytes: MAX_MEDIA_BYTES, limitText: '10 MB' }];

export function uploadRoute(method: string, path: string): UploadRoute | null {
  return UPLOAD_ROUTES.find((route) => route.method === method && route.path === path) ?? null;
}

/** Largest body the request's route takes (`url` may carry a query). */
export function bodyLimit(method: string, url: string): number {
  const path = url.split('?')[0] ?? url;
  return uploadRoute(method, path)?.maxBytes ?? MAX_BODY_BYTES;
}
