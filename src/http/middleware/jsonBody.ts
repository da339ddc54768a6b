import { createRequire } from 'node:module';
import type bodyParser from 'koa-bodyparser';
import type { Middleware } from 'koa';
import { BadRequestError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../../domain/errors.js';
import { DISCARD_LIMITS, discardRequestBody } from '../discardRequestBody.js';
import type { AppState } from '../state.js';
import { MAX_BODY_BYTES, uploadRoute } from '../bodyLimits.js';

export { MAX_BODY_BYTES };

const requireModule = createRequire(import.meta.url);

/**
 * koa-bodyparser (with co-body, qs, raw-body, type-is) is loaded by the first request with a
 * body, not at start-up; main.ts warms it once the server listens.
 */
let parser: Middleware | null = null;
export function jsonParser(): Middleware {
  parser ??= (requireModule('koa-bodyparser') as typeof bodyParser)({
    enableTypes: ['json'],
    jsonLimit: '2mb',
    strict: false,
    // Our own mapping below turns parser failures into AppErrors.
    onerror: (err) => {
      throw err;
    },
  });
  return parser;
}

function hasBody(ctx: Parameters<Middleware>[0]): boolean {
  const length = ctx.get('content-length');
  if (length !== '') return Number(length) > 0;
  return ctx.get('transfer-encoding') !== '';
}

/**
 * The connection is closed after the 413: the body may be left unread (past DISCARD_LIMITS, or
 * never sent after a withheld `100 Continue`), and a keep-alive client's next request behind it
 * would then never be answered.
 */
function tooLarge(cause?: unknown): PayloadTooLargeError {
  return new PayloadTooLargeError(`request body is larger than ${MAX_BODY_BYTES} bytes (2 MB)`, {
    headers: { Connection: 'close' },
    ...(cause === undefined ? {} : { cause }),
  });
}

/**
 * A Content-Length over the limit. The 413 is sent once the client has finished sending
 * (discardRequestBody says why), for bodies up to DISCARD_LIMITS. Not when the client sent
 * `Expect: 100-continue`: createHttpServer withholds the `100 Continue` for a body this large,
 * so the client is waiting for it and sends nothing.
 */
async function refuseDeclaredBody(ctx: Parameters<Middleware>[0], length: number): Promise<never> {
  const waitsForContinue = /^\s*100-continue\s*$/i.test(ctx.get('expect'));
  if (!waitsForContinue && length <= DISCARD_LIMITS.maxBytes) await discardRequestBody(ctx.req);
  throw tooLarge();
}

/** Names the declared encoding when one was given: the likeliest cause is a body not encoded so. */
function encodingHint(encoding: string): string {
  return encoding === '' || /^identity$/i.test(encoding) ? '' : ` (or not encoded as its Content-Encoding "${encoding.slice(0, 40)}" says)`;
}

/**
 * JSON bodies only: 415 for another media type, 413 above 2 MB,
 * 400 for malformed JSON. The parsed body lands in ctx.request.body; `undefined` when none.
 */
export const jsonBody: Middleware<AppState> = async (ctx, next) => {
  if (!['POST', 'PUT', 'PATCH', 'DELETE'].includes(ctx.method) || !hasBody(ctx)) return next();
  // Raw bytes, read by that route's own reader (uploadBody.ts) once the caller is authenticated.
  if (uploadRoute(ctx.method, ctx.path)) return next();
  const length = Number(ctx.get('content-length') || 0);
  if (length > MAX_BODY_BYTES) return refuseDeclaredBody(ctx, length);
  if (!ctx.is('application/json')) {
    throw new UnsupportedMediaTypeError('request bodies must be JSON sent with "Content-Type: application/json"');
  }
  try {
    await jsonParser()(ctx, async () => undefined);
  } catch (err) {
    const status = typeof err === 'object' && err !== null && 'status' in err ? Number(err.status) : 0;
    if (status === 413) {
      // A chunked (or compressed) body that grew past the limit: raw-body stopped reading
      // partway, and the client, invited or not, is still sending the rest.
      await discardRequestBody(ctx.req);
      throw tooLarge(err);
    }
    // The parser may have stopped partway (a body declared gzip that is not): the refusal waits
    // for the rest, or the connection closes, so a keep-alive client's next request is answered.
    const headers: Record<string, string> = (await discardRequestBody(ctx.req)) ? {} : { Connection: 'close' };
    if (status === 415) throw new UnsupportedMediaTypeError('unsupported body encoding', { cause: err, headers });
    throw new BadRequestError(`request body is not valid JSON${encodingHint(ctx.get('content-encoding'))}`, { cause: err, headers });
  }
  return next();
};
