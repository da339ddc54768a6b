import { createHash } from 'node:crypto';
import type { Middleware } from 'koa';
import { BadRequestError } from '../../domain/errors.js';
import type { Logger } from '../../lib/logger.js';
import type { IdempotencyService, SecretField } from '../../services/idempotency.js';
import { actorOf } from '../../services/authContext.js';
import { authOf, type AppContext, type AppState } from '../state.js';

/** Visible ASCII, as Stripe and the IETF draft use them (UUIDs, ULIDs, random strings). */
const KEY = /^[\x21-\x7e]{1,255}$/;

/** What makes two requests "the same": method, path, blog, and the body's exact bytes. */
function fingerprint(ctx: AppContext): string {
  const hash = createHash('sha256').update(`${ctx.method} ${ctx.path}\n${ctx.state.blog?.id ?? ''}\n`);
  const upload = ctx.state.upload;
  if (upload) hash.update(upload.contentType).update('\n').update(upload.bytes);
  else hash.update((ctx.request as { rawBody?: string }).rawBody ?? '');
  return hash.digest('hex');
}

/**
 * Idempotency-Key on a POST route, just before its handler (after authentication, blog
 * resolution and validation: a request refused before doing anything needs no key). A replay
 * carries `Idempotent-Replayed: true`, and goes only to the API key that sent the first request.
 * `secret` names the field of a route's answer that is shown only once (never stored).
 */
export function idempotency(service: IdempotencyService, logger: Logger, secret?: SecretField): Middleware<AppState> {
  return async (ctx, next) => {
    const key = ctx.get('idempotency-key');
    if (key === '') return next();
    if (!KEY.test(key)) throw new BadRequestError('Idempotency-Key must be 1 to 255 visible ASCII characters (a UUID is a good choice)');
    const app = ctx as AppContext;
    const auth = authOf(app);
    const owner = { accountId: auth.account.id, keyId: actorOf(auth) };
    const start = await service.start(owner, key, fingerprint(app), secret);
    if (start.kind === 'replay') {
      ctx.status = start.status;
      ctx.body = start.body;
      ctx.set('Idempotent-Replayed', 'true');
      return;
    }
    try {
      await next();
    } catch (err) {
      await service
        .failed(owner, key)
        .catch((cause: unknown) => logger.warn({ err: cause, requestId: ctx.state.requestId }, 'could not release an Idempotency-Key'));
      throw err;
    }
    // The work is done: failing to record it must not turn the success into an error (a retry
    // then waits out the key's lock and runs again, the one case a duplicate is possible).
    await service
      .succeeded(owner, key, ctx.status, ctx.body, secret)
      .catch((err: unknown) => logger.warn({ err, requestId: ctx.state.requestId }, 'could not record an Idempotency-Key answer'));
  };
}
