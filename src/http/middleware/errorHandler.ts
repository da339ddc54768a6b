import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import { AppError, InsufficientStorageError, isDiskFull, ServiceUnavailableError, StorageError } from '../../domain/errors.js';
import { isDatabaseBusy } from '../../db/database.js';
import { DatabaseUnavailableError } from '../../db/sql/sqlClient.js';
import type { Logger } from '../../lib/logger.js';
import type { AppState } from '../state.js';

const REQUEST_ID = /^[\w.-]{1,128}$/;

/** The client's X-Request-Id when it is safe to echo, else a fresh one. */
export function requestIdFor(incoming: string): string {
  return REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

/**
 * Failures of what Folio depends on, not of the request: the store is unreachable or another
 * process holds SQLite's write lock past the wait (src/db/sql/sqliteClient.ts). The client may
 * simply retry, so they are a 503 with Retry-After rather than a 500.
 */
function asUnavailable(err: unknown): AppError | null {
  // Before StorageError: a folder store on a full disk wraps ENOSPC in one.
  if (isDiskFull(err))
    return new InsufficientStorageError('the server is out of disk space, so nothing was written; try again once the operator has freed space', { cause: err });
  if (err instanceof StorageError)
    return new ServiceUnavailableError('the site store is unavailable; try again shortly', { retryAfter: err.retryAfter ?? 30, cause: err });
  if (err instanceof DatabaseUnavailableError && err.reason === 'unreachable')
    return new ServiceUnavailableError('the database cannot be reached; try again shortly', { retryAfter: 5, cause: err });
  if (isDatabaseBusy(err) || err instanceof DatabaseUnavailableError)
    return new ServiceUnavailableError('the database is busy; try again shortly', { retryAfter: 2, cause: err });
  return null;
}

/**
 * Outermost middleware: assigns the request id, turns every error into the JSON error body
 * (ApiError in the OpenAPI document), and writes one structured log line per request. Unknown errors become a 500
 * whose body names only the request id; the stack goes to the log, never to the client.
 */
export function errorHandler(logger: Logger): Middleware<AppState> {
  // A full disk fails every write until space is freed: logged when it starts and when it ends, not per request.
  let diskFull = false;
  return async (ctx, next) => {
    const started = performance.now();
    const requestId = requestIdFor(ctx.get('x-request-id'));
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    try {
      await next();
      if (diskFull && ctx.method !== 'GET' && ctx.method !== 'HEAD' && ctx.status < 400) {
        diskFull = false;
        logger.info('disk space is back: writes succeed again');
      }
    } catch (caught) {
      const err = asUnavailable(caught) ?? caught;
      if (err instanceof InsufficientStorageError && !diskFull) {
        diskFull = true;
        logger.error(
          { requestId, err: caught },
          'the disk is full: writes answer 507 insufficient_storage until space is freed (the database stays as it was)',
        );
      }
      if (err instanceof AppError) {
        if (err instanceof ServiceUnavailableError) logger.warn({ requestId, err: caught }, 'answered 503');
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
        { requestId, method: ctx.method, path: ctx.state.loggedPath ?? ctx.path, status: ctx.status, ms: Math.round((performance.now() - started) * 10) / 10 },
        'request',
      );
    }
  };
}
