/**
 * SqlClient on PostgreSQL (issue #32, step 2), through node-postgres' pool. Not selectable yet:
 * the repositories are still moving onto the seam, and the schema has no PostgreSQL migrations.
 * It exists now so that the seam's contract (test/support/sqlClientContract.ts) holds on both
 * databases from the start.
 *
 * Transactions are SERIALIZABLE, which is what SQLite's single writer gives the repositories
 * (a read-then-write inside a transaction sees no concurrent change). When PostgreSQL refuses one
 * for a conflict with another (40001) or a deadlock (40P01), it is rolled back and its function
 * runs again, for up to `writeWaitMs` as SQLite's writers wait for the lock: a transaction's
 * function must only query.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { numbersAsNumbers, pgModule } from './pgModule.js';
import { DatabaseUnavailableError, WRITE_WAIT_MS, type SqlClient, type SqlParams, type SqlRunResult, type SqlTransaction } from './sqlClient.js';
import { TransactionHooks } from './transactionHooks.js';
import { numberPlaceholders } from './placeholders.js';
import { namesAnnouncedTable } from './announcedTables.js';
import { BadRequestError } from '../../domain/errors.js';

const RETRIED_CODES = new Set(['40001', '40P01']);

export interface PostgresClientOptions {
  /** Connections the pool may open (node-postgres' default is 10). */
  maxConnections?: number;
  /** How long a transaction may keep being retried after conflicts before its error goes to the caller. */
  writeWaitMs?: number;
}

interface Queryable {
  query(text: string, values?: unknown[]): Promise<pg.QueryResult>;
}

/** The seam's SQL translated once per text. */
const translated = new Map<string, string>();
function pgText(sql: string): string {
  let text = translated.get(sql);
  if (text === undefined) {
    text = numberPlaceholders(sql);
    if (translated.size < 2_000) translated.set(sql, text);
  }
  return text;
}

export class PostgresClient implements SqlClient {
  readonly dialect = 'postgres';
  private readonly pool: pg.Pool;
  private readonly writeWaitMs: number;
  private writes = 0;

  constructor(connectionString: string, options: PostgresClientOptions = {}) {
    const { Pool } = pgModule();
    this.pool = new Pool({ connectionString, max: options.maxConnections ?? 10, types: numbersAsNumbers() });
    // An idle connection that fails (the server restarted) is dropped by the pool; without a
    // listener the error would end the process.
    this.pool.on('error', () => undefined);
    this.writeWaitMs = options.writeWaitMs ?? WRITE_WAIT_MS;
  }

  /**
   * How many writes to the tables the caches read this client has finished (statements that are
   * not a SELECT and name one of them, and committed transactions that ran such a statement): what
   * tells this node's caches, at once, that its own write changed something (PostgresChanges).
   * Writes elsewhere leave it alone (announcedTables.ts). Counting a write that changed nothing
   * only costs a cache miss.
   */
  get writeCount(): number {
    return this.writes;
  }

  async get<Row>(sql: string, params: SqlParams = []): Promise<Row | undefined> {
    return (await this.poolQuery(sql, params)).rows[0] as Row | undefined;
  }

  async all<Row>(sql: string, params: SqlParams = []): Promise<Row[]> {
    return (await this.poolQuery(sql, params)).rows as Row[];
  }

  async run(sql: string, params: SqlParams = []): Promise<SqlRunResult> {
    return { changes: (await this.poolQuery(sql, params)).rowCount ?? 0 };
  }

  private async poolQuery(sql: string, params: SqlParams): Promise<pg.QueryResult> {
    try {
      return await query(this.pool, sql, params);
    } finally {
      // Also after a failure: a statement whose answer was lost may have committed.
      if (changesAnnounced(sql)) this.writes++;
    }
  }

  async transaction<T>(fn: (tx: SqlTransaction) => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.writeWaitMs;
    for (let attempt = 1; ; attempt++) {
      const connection = await this.pool.connect().catch((err: unknown) => {
        throw asUnavailable(err);
      });
      const tx = new PostgresTransaction(connection);
      let broken: Error | undefined;
      try {
        await query(connection, 'BEGIN ISOLATION LEVEL SERIALIZABLE', []);
        const result = await fn(tx);
        // A serialization failure may also come at COMMIT: retried like any other.
        await query(connection, 'COMMIT', []).finally(() => {
          if (tx.wroteAnnounced) this.writes++;
        });
        tx.committed();
        return result;
      } catch (err) {
        await connection.query('ROLLBACK').catch((rollbackErr: Error) => {
          broken = rollbackErr;
        });
        // The function's own errors, and the statements' (already translated), go as they are;
        // a conflict that kept recurring means the database cannot serve this now.
        const conflict = RETRIED_CODES.has(codeOf(err));
        if (!conflict) throw err;
        if (Date.now() >= deadline) throw asUnavailable(err, true);
      } finally {
        tx.end();
        // A connection whose rollback failed is closed rather than handed to the next caller.
        connection.release(broken);
      }
      // Jittered, so that the transactions that conflicted do not meet again at once.
      await sleep(Math.random() * Math.min(100, 2 ** attempt));
    }
  }

  /** Nothing to do: the pool closes connections that stay idle for ten seconds by itself. */
  async rest(): Promise<void> {}

  close(): Promise<void> {
    return this.pool.end();
  }
}

class PostgresTransaction implements SqlTransaction {
  readonly dialect = 'postgres';
  open = true;
  /** Whether a statement that may change a table the caches read ran in it. */
  wroteAnnounced = false;
  private readonly hooks = new TransactionHooks((sql) => this.run(sql));

  constructor(private readonly connection: Queryable) {}

  async get<Row>(sql: string, params: SqlParams = []): Promise<Row | undefined> {
    return (await this.query(sql, params)).rows[0] as Row | undefined;
  }

  async all<Row>(sql: string, params: SqlParams = []): Promise<Row[]> {
    return (await this.query(sql, params)).rows as Row[];
  }

  async run(sql: string, params: SqlParams = []): Promise<SqlRunResult> {
    return { changes: (await this.query(sql, params)).rowCount ?? 0 };
  }

  afterCommit(fn: () => void): void {
    this.hooks.afterCommit(fn);
  }

  attempt<T>(fn: () => Promise<T>): Promise<T> {
    return this.hooks.attempt(fn);
  }

  committed(): void {
    this.hooks.committed();
  }

  end(): void {
    this.open = false;
  }

  private query(sql: string, params: SqlParams): Promise<pg.QueryResult> {
    if (!this.open) return Promise.reject(new Error('this transaction has ended: its handle was kept past its function'));
    if (changesAnnounced(sql)) this.wroteAnnounced = true;
    return query(this.connection, sql, params);
  }
}

const reads = new Map<string, boolean>();
/** Whether a statement only reads (a SELECT); remembered per text, as the seam's texts are few. */
function isRead(sql: string): boolean {
  let read = reads.get(sql);
  if (read === undefined) {
    read = /^\s*select\b/i.test(sql);
    if (reads.size < 2_000) reads.set(sql, read);
  }
  return read;
}

/** Whether a statement may change a table the caches read (announcedTables.ts): what counts as this node's own write. */
function changesAnnounced(sql: string): boolean {
  return !isRead(sql) && namesAnnouncedTable(sql);
}

function query(on: Queryable, sql: string, params: SqlParams): Promise<pg.QueryResult> {
  return on.query(pgText(sql), (isRead(sql) ? withoutNul(params) : params) as unknown[]).catch((err: unknown) => {
    throw nulRefused(err) ?? asUnavailable(err);
  });
}

/**
 * A read that looks text up by a value holding NUL (`GET /v1/posts/%00`) finds what SQLite finds
 * for it here: nothing, since no text PostgreSQL holds has one. The NUL becomes U+FFFF, a
 * noncharacter that text never carries, instead of failing the statement.
 */
function withoutNul(params: SqlParams): SqlParams {
  if (!params.some((value) => typeof value === 'string' && value.includes('\u0000'))) return params;
  return params.map((value) => (typeof value === 'string' ? value.replaceAll('\u0000', '\uffff') : value));
}

/**
 * PostgreSQL's text cannot hold U+0000, which SQLite's can: a value with one (a hostile title, a
 * `%00` in a path) is refused by the server (22021). It is the request's fault, so a 400 that says
 * so, not a 500.
 */
function nulRefused(err: unknown): BadRequestError | null {
  if (codeOf(err) !== '22021' || !(err instanceof Error) || !err.message.includes('0x00')) return null;
  return new BadRequestError('text holding the character U+0000 (NUL) cannot be stored or looked up here: remove it', { cause: err });
}

/**
 * SQLSTATE classes and codes that say the server cannot answer now, not that the statement is
 * wrong: connection exceptions (08), shutdowns and refusals (57P01-57P03), too many connections
 * (53300). Conflicts (40001, 40P01) are retried by transaction() and become unavailability only
 * once they kept recurring until writeWaitMs had passed.
 */
const UNAVAILABLE = /^(08...|57P0[123]|53300)$/;

/**
 * The error as the seam reports it: a failure to reach the server (a socket error, a
 * connection ended by the server, which node-postgres reports without a SQLSTATE) or one of the
 * codes above becomes DatabaseUnavailableError; an error of the statement itself stays as it is.
 */
function asUnavailable(err: unknown, conflictsToo = false): unknown {
  if (err instanceof DatabaseUnavailableError) return err;
  const code = codeOf(err);
  const statementError = /^[0-9A-Z]{5}$/.test(code) && !UNAVAILABLE.test(code) && !(conflictsToo && RETRIED_CODES.has(code));
  if (statementError || !(err instanceof Error)) return err;
  const busy = RETRIED_CODES.has(code) || code === '53300';
  return new DatabaseUnavailableError(`PostgreSQL is unavailable: ${err.message}`, { cause: err, reason: busy ? 'busy' : 'unreachable' });
}

function codeOf(err: unknown): string {
  return typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : '';
}
