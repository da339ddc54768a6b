import type { SqlRunResult } from './sqlClient.js';

/**
 * What both clients' transaction handles add to plain statements: functions run after COMMIT
 * (SqlTransaction.afterCommit) and savepoints (SqlTransaction.attempt).
 */
export class TransactionHooks {
  private readonly onCommit: (() => void)[] = [];
  /** Savepoints open now: they are named by depth, so the statements' texts (and the statement cache) stay few. */
  private depth = 0;

  constructor(private readonly run: (sql: string) => Promise<SqlRunResult>) {}

  afterCommit(fn: () => void): void {
    this.onCommit.push(fn);
  }

  /** Called by the client once COMMIT succeeded. */
  committed(): void {
    for (const fn of this.onCommit.splice(0)) fn();
  }

  async attempt<T>(fn: () => Promise<T>): Promise<T> {
    const name = `attempt_${++this.depth}`;
    await this.run(`SAVEPOINT ${name}`);
    try {
      const result = await fn();
      await this.run(`RELEASE SAVEPOINT ${name}`);
      return result;
    } catch (err) {
      await this.run(`ROLLBACK TO SAVEPOINT ${name}`);
      await this.run(`RELEASE SAVEPOINT ${name}`);
      throw err;
    } finally {
      this.depth -= 1;
    }
  }
}
