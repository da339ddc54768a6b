/**
 * SqlClient on better-sqlite3, with two connections to the same file:
 * - reads outside a transaction run on the connection the process opened (openDatabase), at
 *   once, never waiting behind a writer: WAL gives them the last committed state;
 * - writes and transactions run on a second connection, opened on first use, one at a time in
 *   the order they were asked for.
 *
 * Why two: a transaction's function is asynchronous, so other code runs between its statements.
 * On one connection, a statement of that other code would silently join the open transaction
 * (and vanish with its rollback). Here it cannot: it is on the other connection, and a write
 * there waits for the lock like a write from another process. This also gives SQLite the
 * isolation PostgreSQL has: nothing outside a transaction sees its writes before COMMIT.
 *
 * better-sqlite3 answers synchronously; the promises here resolve as soon as the statement has
 * run. Waiting for a lock held by another process (the CLI, a backup) is done on timers, never
 * inside SQLite: a write waits up to `writeWaitMs`, then its SQLITE_BUSY error goes to the
 * caller (the HTTP layer answers 503 with Retry-After).
 */
import type { Statement } from 'better-sqlite3';
import { setTimeout as sleep } from 'node:timers/promises';
import { isDatabaseBusy, openConnection, SERVER_BUSY_TIMEOUT_MS, type Db } from '../database.js';
import { WRITE_WAIT_MS, type SqlClient, type SqlParams, type SqlRunResult, type SqlTransaction } from './sqlClient.js';
import { StatementCache } from './statementCache.js';
import { TransactionHooks } from './transactionHooks.js';
import { writeTurnsOf, type WriteTurns } from './writeTurns.js';

export interface SqliteClientOptions {
  /**
   * How long a write keeps retrying, on timers, for a lock another process holds before failing
   * with SQLITE_BUSY. Default: WRITE_WAIT_MS on a connection with the server's short busy timeout
   * (the server waits on timers, never inside SQLite); none on a command's connection, which
   * waits inside SQLite for its own busy timeout, as its other writes do.
   */
  writeWaitMs?: number;
}

export class SqliteClient implements SqlClient {
  readonly dialect = 'sqlite';
  private readonly reads: StatementCache;
  private writes: StatementCache | undefined;
  private writer: Db | undefined;
  private autoCheckpointPages: number | undefined;
  private writerOpened: () => void = () => undefined;
  /** Shared with every other client on the same connection (writeTurns.ts). */
  private readonly turns: WriteTurns;
  private readonly writeWaitMs: number;

  constructor(
    private readonly reader: Db,
    options: SqliteClientOptions = {},
  ) {
    if (reader.memory) throw new Error('SqliteClient needs a database file: an in-memory database has no second connection');
    this.reads = new StatementCache(reader);
    this.turns = writeTurnsOf(reader);
    const busyTimeoutMs = reader.pragma('busy_timeout', { simple: true }) as number;
    this.writeWaitMs = options.writeWaitMs ?? (busyTimeoutMs <= SERVER_BUSY_TIMEOUT_MS ? WRITE_WAIT_MS : 0);
  }

  async get<Row>(sql: string, params: SqlParams = []): Promise<Row | undefined> {
    const statement = this.reads.prepare(sql);
    // A statement that writes and returns rows (`UPDATE … RETURNING`) is a write: it takes its turn.
    if (!statement.readonly) return this.write(sql, (writing) => writing.get(...params) as Row | undefined);
    return statement.get(...params) as Row | undefined;
  }

  async all<Row>(sql: string, params: SqlParams = []): Promise<Row[]> {
    const statement = this.reads.prepare(sql);
    if (!statement.readonly) return this.write(sql, (writing) => writing.all(...params) as Row[]);
    return statement.all(...params) as Row[];
  }

  async run(sql: string, params: SqlParams = []): Promise<SqlRunResult> {
    return this.write(sql, (statement) => ({ changes: statement.run(...params).changes }));
  }

  async transaction<T>(fn: (tx: SqlTransaction) => Promise<T>): Promise<T> {
    const release = await this.turn();
    try {
      const statements = this.writeStatements();
      await this.retryWhileBusy(() => statements.prepare('BEGIN IMMEDIATE').run());
      const tx = new SqliteTransaction(statements);
      try {
        const result = await fn(tx);
        statements.prepare('COMMIT').run();
        tx.committed();
        return result;
      } catch (err) {
        if (this.writer?.inTransaction) statements.prepare('ROLLBACK').run();
        throw err;
      } finally {
        tx.end();
      }
    } finally {
      release();
    }
  }

  /**
   * SQLite's automatic checkpoints on the write connection (the checkpointer turns them off
   * while its worker checkpoints off the event loop, and on again when it stops).
   */
  setAutoCheckpoint(pages: number): void {
    this.autoCheckpointPages = pages;
    this.writer?.pragma(`wal_autocheckpoint = ${pages}`);
  }

  /** Called each time the write connection opens (the checkpointer wakes: compose/database.ts). */
  onWriterOpened(listener: () => void): void {
    this.writerOpened = listener;
  }

  /** Whether the write connection is open (it opens on the first write, and closes at rest). */
  get writing(): boolean {
    return this.writer !== undefined;
  }

  /**
   * Closes the write connection (its page cache and statements, about 7 MB after some use) once
   * the writes asked for so far are done; the next write opens it again.
   */
  async rest(): Promise<void> {
    const release = await this.turn();
    try {
      this.writer?.close();
      this.writer = undefined;
      this.writes = undefined;
    } finally {
      release();
    }
  }

  /** Closes the write connection; the read connection is its opener's to close. */
  async close(): Promise<void> {
    this.writer?.close();
    this.writer = undefined;
    this.writes = undefined;
  }

  /** One statement on the write connection, in its turn, committed on its own. */
  private async write<T>(sql: string, execute: (statement: Statement<unknown[]>) => T): Promise<T> {
    const release = await this.turn();
    try {
      const statement = this.writeStatements().prepare(sql);
      return await this.retryWhileBusy(() => execute(statement));
    } finally {
      release();
    }
  }

  private turn(): Promise<() => void> {
    return this.turns.take();
  }

  private writeStatements(): StatementCache {
    if (this.writes) return this.writes;
    const busyTimeoutMs = this.reader.pragma('busy_timeout', { simple: true }) as number;
    const writer = openConnection(this.reader.name, busyTimeoutMs);
    writer.pragma(`wal_autocheckpoint = ${this.autoCheckpointPages ?? (this.reader.pragma('wal_autocheckpoint', { simple: true }) as number)}`);
    this.writer = writer;
    this.writes = new StatementCache(writer);
    this.writerOpened();
    return this.writes;
  }

  private async retryWhileBusy<T>(attempt: () => T): Promise<T> {
    const deadline = Date.now() + this.writeWaitMs;
    for (let tries = 0; ; tries++) {
      try {
        return attempt();
      } catch (err) {
        if (!isDatabaseBusy(err) || Date.now() >= deadline) throw err;
        await sleep(Math.min(100, 5 * 2 ** tries));
      }
    }
  }
}

class SqliteTransaction implements SqlTransaction {
  readonly dialect = 'sqlite';
  open = true;
  private readonly hooks = new TransactionHooks((sql) => this.run(sql));

  constructor(private readonly statements: StatementCache) {}

  async get<Row>(sql: string, params: SqlParams = []): Promise<Row | undefined> {
    return this.prepare(sql).get(...params) as Row | undefined;
  }

  async all<Row>(sql: string, params: SqlParams = []): Promise<Row[]> {
    return this.prepare(sql).all(...params) as Row[];
  }

  async run(sql: string, params: SqlParams = []): Promise<SqlRunResult> {
    return { changes: this.prepare(sql).run(...params).changes };
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

  private prepare(sql: string) {
    if (!this.open) throw new Error('this transaction has ended: its handle was kept past its function');
    return this.statements.prepare(sql);
  }
}
