import type { ParameterizedContext } from 'koa';
import { PayloadTooLargeError, UnsupportedMediaTypeError } from '../../domain/errors.js';

/** The dashboard's own forms (sign-in, sign-out) are a few short fields. */
const MAX_FORM_BYTES = 16 * 1024;

/**
 * The fields of an `application/x-www-form-urlencoded` body, at most MAX_FORM_BYTES. The
 * dashboard's routes run before jsonBody (which takes JSON only), so they read their own forms.
 */
export async function readForm(ctx: ParameterizedContext): Promise<URLSearchParams> {
  const declared = ctx.get('content-length');
  if (declared !== '' && Number(declared) > MAX_FORM_BYTES) throw tooLarge();
  if ((declared === '' || Number(declared) > 0) && !ctx.is('application/x-www-form-urlencoded')) {
    if (declared === '' && ctx.get('transfer-encoding') === '') return new URLSearchParams();
    throw new UnsupportedMediaTypeError('this form takes "Content-Type: application/x-www-form-urlencoded"');
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_FORM_BYTES) throw tooLarge();
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function tooLarge(): PayloadTooLargeError {
  return new PayloadTooLargeError(`form bodies are at most ${MAX_FORM_BYTES} bytes`, { headers: { Connection: 'close' } });
}
