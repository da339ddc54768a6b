import type { Db } from './database.js';
import type { Plan } from '../domain/plans.js';

export interface Account {
  id: string;
  email: string | null;
  plan: Plan;
  createdAt: string;
  updatedAt: string;
}

interface AccountRow {
  id: string;
  email: string | null;
  plan: Plan;
  created_at: string;
  updated_at: string;
}

const toAccount = (row: AccountRow): Account => ({
  id: row.id,
  email: row.email,
  plan: row.plan,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export class AccountsRepo {
  private readonly insertStmt;
  private readonly byIdStmt;
  private readonly listStmt;
  private readonly setPlanStmt;
  private readonly countStmt;
  private readonly deleteStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare('INSERT INTO accounts (id, email, plan, created_at, updated_at) VALUES (@id, @email, @plan, @createdAt, @updatedAt)');
    this.byIdStmt = db.prepare<[string], AccountRow>('SELECT * FROM accounts WHERE id = ?');
    this.listStmt = db.prepare<[], AccountRow>('SELECT * FROM accounts ORDER BY created_at, id');
    this.setPlanStmt = db.prepare('UPDATE accounts SET plan = ?, updated_at = ? WHERE id = ?');
    this.countStmt = db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM accounts');
    this.deleteStmt = db.prepare('DELETE FROM accounts WHERE id = ?');
  }

  insert(account: Account): void {
    this.insertStmt.run(account);
  }

  findById(id: string): Account | null {
    const row = this.byIdStmt.get(id);
    return row ? toAccount(row) : null;
  }

  list(): Account[] {
    return this.listStmt.all().map(toAccount);
  }

  setPlan(id: string, plan: Plan, now: string): boolean {
    return this.setPlanStmt.run(plan, now, id).changes > 0;
  }

  count(): number {
    return this.countStmt.get()?.n ?? 0;
  }

  /** Its keys, blogs and idempotency records go with it (ON DELETE CASCADE); publish jobs stay. */
  delete(id: string): boolean {
    return this.deleteStmt.run(id).changes > 0;
  }
}
