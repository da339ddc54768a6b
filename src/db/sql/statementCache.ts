import type { Statement } from 'better-sqlite3';
import type { Db } from '../database.js';

/**
 * A connection's prepared statements by their SQL text: preparing costs more than running a
 * simple indexed query, and the repositories' texts are constants. Bounded all the same, in case
 * a caller builds SQL from data (the oldest statement goes first).
 */
export class StatementCache {
  private readonly statements = new Map<string, Statement<unknown[]>>();

  constructor(
    private readonly db: Db,
    private readonly limit = 1_000,
  ) {}

  prepare(sql: string): Statement<unknown[]> {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare<unknown[]>(sql);
      if (this.statements.size >= this.limit) this.statements.delete(this.statements.keys().next().value!);
      this.statements.set(sql, statement);
    }
    return statement;
  }
}
