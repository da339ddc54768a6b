import type { SqlScope, SqlTransaction } from './sql/sqlClient.js';
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
  constructor(private readonly sql: SqlScope) {}

  /** The same queries inside a transaction. */
  in(tx: SqlTransaction): AccountsRepo {
    return new AccountsRepo(tx);
  }

  async insert(account: Account): Promise<void> {
    await this.sql.run('INSERT INTO accounts (id, email, plan, created_at, updated_at) VALUES (?, ?, ?, ?, ?)', [
      account.id,
      account.email,
      account.plan,
      account.createdAt,
      account.updatedAt,
    ]);
  }

  async findById(id: string): Promise<Account | null> {
    const row = await this.sql.get<AccountRow>('SELECT * FROM accounts WHERE id = ?', [id]);
    return row ? toAccount(row) : null;
  }

  async list(): Promise<Account[]> {
    return (await this.sql.all<AccountRow>('SELECT * FROM accounts ORDER BY created_at, id')).map(toAccount);
  }

  async setPlan(id: string, plan: Plan, now: string): Promise<boolean> {
    return (await this.sql.run('UPDATE accounts SET plan = ?, updated_at = ? WHERE id = ?', [plan, now, id])).changes > 0;
  }

  async count(): Promise<number> {
    return (await this.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM accounts'))?.n ?? 0;
  }

  /** The account's password hash (`scrypt$…`), null without a password or account. */
  async passwordHash(id: string): Promise<string | null> {
    return (await this.sql.get<{ password_hash: string | null }>('SELECT password_hash FROM accounts WHERE id = ?', [id]))?.password_hash ?? null;
  }

  /** Sets the password hash, and the email when one is given. */
  async setPassword(id: string, hash: string, email: string | null, now: string): Promise<boolean> {
    return (
      (await this.sql.run('UPDATE accounts SET password_hash = ?, email = COALESCE(?, email), updated_at = ? WHERE id = ?', [hash, email, now, id])).changes > 0
    );
  }

  /** The one account that signs in with this email and a password, null when none or several. */
  async findByEmailWithPassword(email: string): Promise<{ account: Account; passwordHash: string } | null> {
    // Emails are compared without case; two rows are read so that an ambiguous email signs no one in.
    const rows = await this.sql.all<AccountRow & { password_hash: string }>(
      'SELECT * FROM accounts WHERE lower(email) = lower(?) AND password_hash IS NOT NULL LIMIT 2',
      [email],
    );
    if (rows.length !== 1) return null;
    return { account: toAccount(rows[0]!), passwordHash: rows[0]!.password_hash };
  }

  /** Whether another account already signs in with this email (emails are not unique otherwise). */
  async emailTakenForSignIn(email: string, exceptId: string): Promise<boolean> {
    const row = await this.sql.get<{ id: string }>('SELECT id FROM accounts WHERE lower(email) = lower(?) AND password_hash IS NOT NULL AND id != ? LIMIT 1', [
      email,
      exceptId,
    ]);
    return row !== undefined;
  }

  /** Its keys, blogs and idempotency records go with it (ON DELETE CASCADE); publish jobs stay. */
  async delete(id: string): Promise<boolean> {
    return (await this.sql.run('DELETE FROM accounts WHERE id = ?', [id])).changes > 0;
  }
}
