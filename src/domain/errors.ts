/**
 * The API's error model: one class per public error code. Nothing here knows Koa;
 * the HTTP error middleware turns an AppError into `{error, message, ...}`.
 */

export type ErrorCode =
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'idempotency_key_reused'
  | 'precondition_failed'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limit_exceeded'
  | 'service_unavailable'
  | 'insufficient_storage';

export interface FieldIssue {
  field: string;
  message: string;
}

export interface AppErrorOptions {
  details?: FieldIssue[];
  requiredPlan?: string;
  retryAfter?: number;
  headers?: Record<string, string>;
  cause?: unknown;
}

export abstract class AppError extends Error {
  abstract readonly code: ErrorCode;
  abstract readonly status: number;
  readonly details?: FieldIssue[];
  readonly requiredPlan?: string;
  readonly retryAfter?: number;
  readonly headers?: Record<string, string>;

  constructor(message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    if (options.details) this.details = options.details;
    if (options.requiredPlan) this.requiredPlan = options.requiredPlan;
    if (options.retryAfter !== undefined) this.retryAfter = options.retryAfter;
    if (options.headers) this.headers = options.headers;
  }
}

export class BadRequestError extends AppError {
  readonly code = 'bad_request';
  readonly status = 400;
}

export class UnauthorizedError extends AppError {
  readonly code = 'unauthorized';
  readonly status = 401;
}

export class ForbiddenError extends AppError {
  readonly code = 'forbidden';
  readonly status = 403;
}

export class NotFoundError extends AppError {
  readonly code = 'not_found';
  readonly status = 404;
}

/** The path exists but not for this method (`Allow` lists the ones it takes). */
export class MethodNotAllowedError extends AppError {
  readonly code = 'method_not_allowed';
  readonly status = 405;

  constructor(message: string, allow: readonly string[]) {
    super(message, { headers: { Allow: allow.join(', ') } });
  }
}

export class ConflictError extends AppError {
  readonly code = 'conflict';
  readonly status = 409;
}

/** An Idempotency-Key sent again with another request than the one it first came with. */
export class IdempotencyKeyReusedError extends AppError {
  readonly code = 'idempotency_key_reused';
  readonly status = 422;
}

/** If-Match named a version the resource no longer has: nothing was written. */
export class PreconditionFailedError extends AppError {
  readonly code = 'precondition_failed';
  readonly status = 412;
}

export class PayloadTooLargeError extends AppError {
  readonly code = 'payload_too_large';
  readonly status = 413;
}

export class UnsupportedMediaTypeError extends AppError {
  readonly code = 'unsupported_media_type';
  readonly status = 415;
}

export class RateLimitError extends AppError {
  readonly code = 'rate_limit_exceeded';
  readonly status = 429;
}

/**
 * Folio cannot answer now but will soon: the database is locked by another process, the store is
 * unreachable, or the content workers are saturated. Always carries `Retry-After`, so clients
 * back off instead of treating it as a failure of their input.
 */
export class ServiceUnavailableError extends AppError {
  readonly code = 'service_unavailable';
  readonly status = 503;

  constructor(message: string, options: Omit<AppErrorOptions, 'retryAfter'> & { retryAfter: number }) {
    super(message, { ...options, headers: { ...options.headers, 'Retry-After': String(options.retryAfter) } });
  }
}

/**
 * The server's disk is full (SQLite's SQLITE_FULL, a file write's ENOSPC): nothing was written,
 * and the write succeeds again once the operator frees space. Not a 503: waiting alone does not
 * help, someone has to act.
 */
export class InsufficientStorageError extends AppError {
  readonly code = 'insufficient_storage';
  readonly status = 507;
}

/**
 * A storage backend failed (disk, network, provider). Not an HTTP error: the publisher catches
 * it, keeps the job pending and retries. Adapters wrap provider errors in it with `cause`.
 */
export class StorageError extends Error {
  /** Seconds a client should wait before trying again, when the store knows better than the default. */
  readonly retryAfter?: number;

  constructor(message: string, options?: { cause?: unknown; retryAfter?: number }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'StorageError';
    if (options?.retryAfter !== undefined) this.retryAfter = options.retryAfter;
  }
}

/**
 * The store did not answer in time (a hung server, a network that drops packets), or recently
 * did not and is not asked again yet (storeCircuit.ts). Like any StorageError: the publisher
 * retries, the HTTP layer answers 503 with Retry-After.
 */
export class StoreTimeoutError extends StorageError {
  constructor(message: string, options?: { cause?: unknown; retryAfter?: number }) {
    super(message, options);
    this.name = 'StoreTimeoutError';
  }
}

/**
 * The disk is full: SQLite's SQLITE_FULL (also raised at PRAGMA max_page_count) or a file
 * write's ENOSPC, anywhere in the `cause` chain (the stores wrap what they throw).
 */
export function isDiskFull(err: unknown): boolean {
  for (let e = err, depth = 0; e !== undefined && e !== null && depth < 10; e = e instanceof Error ? e.cause : undefined, depth++) {
    const code = typeof e === 'object' && 'code' in e ? String(e.code) : '';
    if (code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT') return true;
  }
  return false;
}
