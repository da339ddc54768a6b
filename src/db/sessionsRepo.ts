import type { SqlWriter } from './sql/sqlClient.js';
import type { Account } from './accountsRepo.js';
import type { Plan } from '../domain/plans.js';

/** A signed-in browser (docs/dashboard.md#sessions); the cookie's secret is not part of it. */
export interface Session {
  id: string;
  accountId: string;
  csrfToken: string;
  createdAt: string;
  lastUsedAt: string;
  expiresAt: string;
  userAgent: string;
}

export interface NewSession extends Session {
  secretHash: string;
}

interface SessionRow {
  id: string;
  account_id: string;
  csrf_token: string;
  created_at: string;
  last_used_at: string;
  expires_at: string;
  user_agent: string;
}

interface SessionWithAccountRow extends SessionRow {
  plan: Plan;
  email: string | null;
  account_created_at: string;
  account_updated_at: string;
}

const toSession = (row: SessionRow): Session => ({
  id: row.id,
  accountId: row.account_id,
  csrfToken: row.csrf_token,
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
  expiresAt: row.expires_at,
  userAgent: row.user_agent,
});

export class SessionsRepo {
  constructor(private readonly sql: SqlWriter) {}

  async insert(session: NewSession): Promise<void> {
    await this.sql.run(
      `INSERT INTO sessions (id, secret_hash, account_id, csrf_token, created_at, last_used_at, expires_at, user_agent)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      [session.id, session.secretHash, session.accountId, session.csrfToken, session.createdAt, session.lastUsedAt, session.expiresAt, session.userAgent],
    );
  }

  /** The session with this secret hash and its account (expired ones too: the caller compares). */
  async findByHash(hash: string): Promise<{ session: Session; account: Account } | null> {
    // One read per request: the session and its account together, on the hash's unique index.
    const row = await this.sql.get<SessionWithAccountRow>(
      `SELECT s.*, a.plan, a.email, a.created_at AS account_created_at, a.updated_at AS account_updated_at
         FROM sessions s JOIN accounts a ON a.id = s.account_id
        WHERE s.secret_hash = ?`,
      [hash],
    );
    if (!row) return null;
    return {
      session: toSession(row),
      account: { id: row.account_id, email: row.email, plan: row.plan, createdAt: row.account_created_at, updatedAt: row.account_updated_at },
    };
  }

  /** The account's live sessions, newest first. */
  async listLive(accountId: string, now: string): Promise<Session[]> {
    const rows = await this.sql.all<SessionRow>('SELECT * FROM sessions WHERE account_id = ? AND expires_at > ? ORDER BY created_at DESC, id', [
      accountId,
      now,
    ]);
    return rows.map(toSession);
  }

  async touch(id: string, lastUsedAt: string, expiresAt: string): Promise<void> {
    await this.sql.run('UPDATE sessions SET last_used_at = ?, expires_at = ? WHERE id = ?', [lastUsedAt, expiresAt, id]);
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    return (await this.sql.run('DELETE FROM sessions WHERE id = ? AND account_id = ?', [id, accountId])).changes > 0;
  }

  async deleteAll(accountId: string): Promise<number> {
    return (await this.sql.run('DELETE FROM sessions WHERE account_id = ?', [accountId])).changes;
  }

  /** Every session of the account but `keepId` (a password change keeps the browser that made it). */
  async deleteOthers(accountId: string, keepId: string): Promise<number> {
    return (await this.sql.run('DELETE FROM sessions WHERE account_id = ? AND id != ?', [accountId, keepId])).changes;
  }

  async deleteExpired(now: string): Promise<number> {
    return (await this.sql.run('DELETE FROM sessions WHERE expires_at <= ?', [now])).changes;
  }
}
