/**
 * The query seam every repository is moving onto (issue #32, step 1): plain SQL with positional
 * `?` parameters, answered asynchronously, so that the same repositories can later run on
 * PostgreSQL, whose driver cannot answer synchronously. SQLite's implementation is
 * sqliteClient.ts; docs/architecture.md says why we chose SQL text over a query builder.
 *
 * Rules for the SQL passed here, so that one text serves both databases:
 * - positional `?` parameters only (no `@name`, no `$1`);
 * - `INSERT … ON CONFLICT … DO NOTHING | DO UPDATE` rather than `INSERT OR IGNORE | REPLACE`;
 * - no SQLite-only functions where a standard one exists.
 */

/** A value SQLite and PostgreSQL both bind: text, numbers, blobs and NULL. */
export type SqlValue = string | number | bigint | Buffer | null;
export type SqlParams = readonly SqlValue[];

export interface SqlRunResult {
  /** Rows the statement inserted, updated or deleted. */
  changes: number;
}

/**
 * How long a write waits for a lock another process holds (SQLite) or keeps being retried after
 * conflicts (PostgreSQL) before its error goes to the caller: the HTTP layer answers 503.
 */
export const WRITE_WAIT_MS = 5_000;

/** Which database answers: for the few statements whose text cannot be the same on both. */
export type SqlDialect = 'sqlite' | 'postgres';

/** Reads: outside a transaction they see every committed write, of this process or another. */
export interface SqlReader {
  readonly dialect: SqlDialect;
  /** The first row, or undefined when there is none. */
  get<Row>(sql: string, params?: SqlParams): Promise<Row | undefined>;
  all<Row>(sql: string, params?: SqlParams): Promise<Row[]>;
}

export interface SqlWriter extends SqlReader {
  /** Outside a transaction the statement commits on its own, waiting for the write lock if need be. */
  run(sql: string, params?: SqlParams): Promise<SqlRunResult>;
}

/** What a transaction's function is given: its statements commit together or not at all. */
export interface SqlTransaction extends SqlWriter {
  /**
   * Runs `fn` once the transaction has committed (never after a rollback, nor for an attempt
   * PostgreSQL retried): wakes what must only look once the writes are visible.
   */
  afterCommit(fn: () => void): void;
  /**
   * Runs `fn` under a savepoint: when it rejects, only its statements are undone and the
   * transaction goes on (PostgreSQL refuses every statement after an error otherwise).
   */
  attempt<T>(fn: () => Promise<T>): Promise<T>;
}

export interface SqlClient extends SqlWriter {
  /**
   * Runs `fn` in a write transaction: committed when its promise resolves, rolled back when it
   * rejects. Other writers wait until it ends, so `fn` should only query (no network, no store
   * writes); reads outside it go on. Inside `fn`, query only through the `tx` it is handed:
   * the client's own writes would wait for this transaction to end,
   * which waits for them, and the client's reads would not see the transaction's writes.
   * (Not checked at run time: on Node 20 the one way to tell, AsyncLocalStorage, makes every
   * promise of the process about three times slower.)
   */
  transaction<T>(fn: (tx: SqlTransaction) => Promise<T>): Promise<T>;
  /** A server at rest (warmup/rest.ts): lets go of connections that only use needs; the next query opens them again. */
  rest(): Promise<void>;
  close(): Promise<void>;
}

/** Where a repository's queries go: the client itself, or the handle of a transaction under way. */
export type SqlScope = SqlClient | SqlTransaction;

/**
 * Runs `fn` all-or-nothing: in a transaction of its own on a client, or as part of the
 * transaction a handle belongs to. `fn` may run more than once (PostgreSQL retries conflicts).
 */
export function atomically<T>(scope: SqlScope, fn: (tx: SqlTransaction) => Promise<T>): Promise<T> {
  return 'transaction' in scope ? scope.transaction(fn) : fn(scope);
}

/**
 * The database cannot answer now (PostgreSQL restarting, failing over, refusing connections):
 * not the request's fault, so the HTTP layer answers 503 with Retry-After. SQLite's equivalent
 * is its busy error (database.ts isDatabaseBusy).
 */
export class DatabaseUnavailableError extends Error {
  /** `unreachable`: no connection (a restart, a failover); `busy`: conflicts kept recurring past the write wait. */
  readonly reason: 'unreachable' | 'busy';

  constructor(message: string, options?: { cause?: unknown; reason?: 'unreachable' | 'busy' }) {
    super(message, options);
    this.name = 'DatabaseUnavailableError';
    this.reason = options?.reason ?? 'unreachable';
  }
}
