import { createRequire } from 'node:module';
import type getRawBody from 'raw-body';
import type { Middleware } from 'koa';
import { BadRequestError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../../domain/errors.js';
import type { UploadRoute } from '../bodyLimits.js';
import { discardRequestBody } from '../discardRequestBody.js';
import type { AppState } from '../state.js';

/**
 * First in an upload route's chain: whatever refuses the request later (a bad key, a missing
 * scope) answers only after the client has finished sending, as jsonBody does for JSON bodies
 * (discardRequestBody.ts says why).
 */
export const drainOnRefusal: Middleware<AppState> = async (ctx, next) => {
  try {
    await next();
  } catch (err) {
    await discardRequestBody(ctx.req);
    throw err;
  }
};

const requireModule = createRequire(import.meta.url);

/**
 * raw-body is loaded by the first upload, not at start-up: with iconv-lite's tables it is a
 * large part of the server bundle that a cold start would parse. jsonBody's parser
 * (warmed after the first answer) loads the same module, so an upload rarely pays for it.
 */
let loaded: typeof getRawBody | undefined;
const rawBody = (): typeof getRawBody => (loaded ??= requireModule('raw-body') as typeof getRawBody);

/** Reads the raw body of an upload route into ctx.state.upload, at most `route.maxBytes`. */
export function uploadBody(route: UploadRoute): Middleware<AppState> {
  const tooLarge = (cause?: unknown) =>
    new PayloadTooLargeError(`request body is larger than ${route.maxBytes} bytes (${route.limitText})`, {
      headers: { Connection: 'close' },
      ...(cause === undefined ? {} : { cause }),
    });
  return async (ctx, next) => {
    const declared = ctx.get('content-length');
    if (declared !== '' && Number(declared) > route.maxBytes) throw tooLarge();
    // An encoding we do not decode is an unsupported media type (RFC 9110 §15.5.16), as on the
    // JSON routes; images are compressed already, so uploads take none.
    if (ctx.get('content-encoding') && ctx.get('content-encoding').toLowerCase() !== 'identity') {
      throw new UnsupportedMediaTypeError('upload bodies cannot be Content-Encoded; send the image bytes as they are');
    }
    let bytes: Buffer;
    try {
      bytes = await rawBody()(ctx.req, { limit: route.maxBytes, ...(declared !== '' ? { length: Number(declared) } : {}) });
    } catch (err) {
      const status = typeof err === 'object' && err !== null && 'status' in err ? Number(err.status) : 0;
      if (status === 413) throw tooLarge(err);
      throw new BadRequestError('the request body could not be read completely', { cause: err });
    }
    ctx.state.upload = { bytes, contentType: ctx.get('content-type') };
    return next();
  };
}
