import type { Db } from './database.js';
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
  private readonly insertStmt;
  private readonly byHashStmt;
  private readonly listStmt;
  private readonly touchStmt;
  private readonly deleteStmt;
  private readonly deleteAllStmt;
  private readonly deleteOthersStmt;
  private readonly deleteExpiredStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO sessions (id, secret_hash, account_id, csrf_token, created_at, last_used_at, expires_at, user_agent)
       VALUES (@id, @secretHash, @accountId, @csrfToken, @createdAt, @lastUsedAt, @expiresAt, @userAgent)`,
    );
    // One read per request: the session and its account together, on the hash's unique index.
    this.byHashStmt = db.prepare<[string], SessionWithAccountRow>(
      `SELECT s.*, a.plan, a.email, a.created_at AS account_created_at, a.updated_at AS account_updated_at
         FROM sessions s JOIN accounts a ON a.id = s.account_id
        WHERE s.secret_hash = ?`,
    );
    this.listStmt = db.prepare<[string, string], SessionRow>('SELECT * FROM sessions WHERE account_id = ? AND expires_at > ? ORDER BY created_at DESC, id');
    this.touchStmt = db.prepare('UPDATE sessions SET last_used_at = ?, expires_at = ? WHERE id = ?');
    this.deleteStmt = db.prepare('DELETE FROM sessions WHERE id = ? AND account_id = ?');
    this.deleteAllStmt = db.prepare('DELETE FROM sessions WHERE account_id = ?');
    this.deleteOthersStmt = db.prepare('DELETE FROM sessions WHERE account_id = ? AND id != ?');
    this.deleteExpiredStmt = db.prepare('DELETE FROM sessions WHERE expires_at <= ?');
  }

  insert(session: NewSession): void {
    this.insertStmt.run(session);
  }

  /** The session with this secret hash and its account (expired ones too: the caller compares). */
  findByHash(hash: string): { session: Session; account: Account } | null {
    const row = this.byHashStmt.get(hash);
    if (!row) return null;
    return {
      session: toSession(row),
      account: { id: row.account_id, email: row.email, plan: row.plan, createdAt: row.account_created_at, updatedAt: row.account_updated_at },
    };
  }

  /** The account's live sessions, newest first. */
  listLive(accountId: string, now: string): Session[] {
    return this.listStmt.all(accountId, now).map(toSession);
  }

  touch(id: string, lastUsedAt: string, expiresAt: string): void {
    this.touchStmt.run(lastUsedAt, expiresAt, id);
  }

  delete(accountId: string, id: string): boolean {
    return this.deleteStmt.run(id, accountId).changes > 0;
  }

  deleteAll(accountId: string): number {
    return this.deleteAllStmt.run(accountId).changes;
  }

  /** Every session of the account but `keepId` (a password change keeps the browser that made it). */
  deleteOthers(accountId: string, keepId: string): number {
    return this.deleteOthersStmt.run(accountId, keepId).changes;
  }

  deleteExpired(now: string): number {
    return this.deleteExpiredStmt.run(now).changes;
  }
}
