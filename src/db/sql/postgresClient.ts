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
import { AsyncLocalStorage } from 'node:async_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { SqlClient, SqlParams, SqlRunResult, SqlTransaction } from './sqlClient.js';
import { numberPlaceholders } from './placeholders.js';
import { WRITE_WAIT_MS } from '../writeTransaction.js';

const INT8_OID = 20;
const NUMERIC_OID = 1700;
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
  private readonly pool: pg.Pool;
  private readonly current = new AsyncLocalStorage<PostgresTransaction>();
  private readonly writeWaitMs: number;

  constructor(connectionString: string, options: PostgresClientOptions = {}) {
    this.pool = new pg.Pool({
      connectionString,
      max: options.maxConnections ?? 10,
      // Bigints (every integer column, COUNT(*)) and numerics (SUM of bigints) come back as
      // numbers, as SQLite's integers do: Folio's counts and ids fit in a double.
      types: {
        getTypeParser: ((oid: number, format?: string) =>
          oid === INT8_OID || oid === NUMERIC_OID ? Number : pg.types.getTypeParser(oid, format as 'text')) as never,
      },
    });
    // An idle connection that fails (the server restarted) is dropped by the pool; without a
    // listener the error would end the process.
    this.pool.on('error', () => undefined);
    this.writeWaitMs = options.writeWaitMs ?? WRITE_WAIT_MS;
  }

  async get<Row>(sql: string, params: SqlParams = []): Promise<Row | undefined> {
    this.refuseInsideTransaction();
    return (await query(this.pool, sql, params)).rows[0] as Row | undefined;
  }

  async all<Row>(sql: string, params: SqlParams = []): Promise<Row[]> {
    this.refuseInsideTransaction();
    return (await query(this.pool, sql, params)).rows as Row[];
  }

  async run(sql: string, params: SqlParams = []): Promise<SqlRunResult> {
    this.refuseInsideTransaction();
    return { changes: (await query(this.pool, sql, params)).rowCount ?? 0 };
  }

  async transaction<T>(fn: (tx: SqlTransaction) => Promise<T>): Promise<T> {
    this.refuseInsideTransaction();
    const deadline = Date.now() + this.writeWaitMs;
    for (let attempt = 1; ; attempt++) {
      const connection = await this.pool.connect();
      const tx = new PostgresTransaction(connection);
      let broken: Error | undefined;
      try {
        await connection.query('BEGIN ISOLATION LEVEL SERIALIZABLE');
        const result = await this.current.run(tx, () => fn(tx));
        await connection.query('COMMIT');
        return result;
      } catch (err) {
        await connection.query('ROLLBACK').catch((rollbackErr: Error) => {
          broken = rollbackErr;
        });
        if (!RETRIED_CODES.has(codeOf(err)) || Date.now() >= deadline) throw err;
      } finally {
        tx.end();
        // A connection whose rollback failed is closed rather than handed to the next caller.
        connection.release(broken);
      }
      // Jittered, so that the transactions that conflicted do not meet again at once.
      await sleep(Math.random() * Math.min(100, 2 ** attempt));
    }
  }

  close(): Promise<void> {
    return this.pool.end();
  }

  private refuseInsideTransaction(): void {
    if (this.current.getStore()?.open) {
      throw new Error('this code runs inside a transaction: query through the transaction its function was given, not the client');
    }
  }
}

class PostgresTransaction implements SqlTransaction {
  open = true;

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

  end(): void {
    this.open = false;
  }

  private query(sql: string, params: SqlParams): Promise<pg.QueryResult> {
    if (!this.open) return Promise.reject(new Error('this transaction has ended: its handle was kept past its function'));
    return query(this.connection, sql, params);
  }
}

function query(on: Queryable, sql: string, params: SqlParams): Promise<pg.QueryResult> {
  return on.query(pgText(sql), params as unknown[]);
}

function codeOf(err: unknown): string {
  return typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : '';
}
