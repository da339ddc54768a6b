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
  private readonly passwordStmt;
  private readonly setPasswordStmt;
  private readonly byEmailWithPasswordStmt;
  private readonly otherWithPasswordStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare('INSERT INTO accounts (id, email, plan, created_at, updated_at) VALUES (@id, @email, @plan, @createdAt, @updatedAt)');
    this.byIdStmt = db.prepare<[string], AccountRow>('SELECT * FROM accounts WHERE id = ?');
    this.listStmt = db.prepare<[], AccountRow>('SELECT * FROM accounts ORDER BY created_at, id');
    this.setPlanStmt = db.prepare('UPDATE accounts SET plan = ?, updated_at = ? WHERE id = ?');
    this.countStmt = db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM accounts');
    this.deleteStmt = db.prepare('DELETE FROM accounts WHERE id = ?');
    this.passwordStmt = db.prepare<[string], { password_hash: string | null }>('SELECT password_hash FROM accounts WHERE id = ?');
    this.setPasswordStmt = db.prepare('UPDATE accounts SET password_hash = ?, email = COALESCE(?, email), updated_at = ? WHERE id = ?');
    // Emails are compared without case; two rows are read so that an ambiguous email signs no one in.
    this.byEmailWithPasswordStmt = db.prepare<[string], AccountRow & { password_hash: string }>(
      'SELECT * FROM accounts WHERE lower(email) = lower(?) AND password_hash IS NOT NULL LIMIT 2',
    );
    this.otherWithPasswordStmt = db.prepare<[string, string], { id: string }>(
      'SELECT id FROM accounts WHERE lower(email) = lower(?) AND password_hash IS NOT NULL AND id != ? LIMIT 1',
    );
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

  /** The account's password hash (`scrypt$…`), null without a password or account. */
  passwordHash(id: string): string | null {
    return this.passwordStmt.get(id)?.password_hash ?? null;
  }

  /** Sets the password hash, and the email when one is given. */
  setPassword(id: string, hash: string, email: string | null, now: string): boolean {
    return this.setPasswordStmt.run(hash, email, now, id).changes > 0;
  }

  /** The one account that signs in with this email and a password, null when none or several. */
  findByEmailWithPassword(email: string): { account: Account; passwordHash: string } | null {
    const rows = this.byEmailWithPasswordStmt.all(email);
    if (rows.length !== 1) return null;
    return { account: toAccount(rows[0]!), passwordHash: rows[0]!.password_hash };
  }

  /** Whether another account already signs in with this email (emails are not unique otherwise). */
  emailTakenForSignIn(email: string, exceptId: string): boolean {
    return this.otherWithPasswordStmt.get(email, exceptId) !== undefined;
  }

  /** Its keys, blogs and idempotency records go with it (ON DELETE CASCADE); publish jobs stay. */
  delete(id: string): boolean {
    return this.deleteStmt.run(id).changes > 0;
  }
}
