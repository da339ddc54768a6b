import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import { AppError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { AppState } from '../state.js';

const REQUEST_ID = /^[\w.-]{1,128}$/;

/**
 * Outermost middleware: assigns the request id, turns every error into the JSON body of
 * decisions.md, and writes one structured log line per request. Unknown errors become a 500
 * whose body names only the request id; the stack goes to the log, never to the client.
 */
export function errorHandler(logger: Logger): Middleware<AppState> {
  return async (ctx, next) => {
    const started = performance.now();
    const incoming = ctx.get('x-request-id');
    const requestId = REQUEST_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    try {
      await next();
    } catch (err) {
      if (err instanceof AppError) {
        ctx.status = err.status;
        if (err.headers) ctx.set(err.headers);
        ctx.body = {
          error: err.code,
          message: err.message,
          ...(err.details ? { details: err.details } : {}),
          ...(err.requiredPlan ? { required_plan: err.requiredPlan } : {}),
          ...(err.retryAfter !== undefined ? { retry_after: err.retryAfter } : {}),
        };
      } else {
        logger.error({ requestId, err }, 'unhandled error');
        ctx.status = 500;
        ctx.body = { error: 'internal_error', message: `internal error; quote request id ${requestId} when reporting it` };
      }
    } finally {
      logger.info(
        { requestId, method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round((performance.now() - started) * 10) / 10 },
        'request',
      );
    }
  };
}
