import type { Db } from './database.js';

export interface NewLoginLink {
  tokenHash: string;
  accountId: string;
  createdAt: string;
  expiresAt: string;
}

/** What consuming a link came to: the account it signs in, or why not. */
export type LinkUse = { outcome: 'ok'; accountId: string } | { outcome: 'unknown' | 'used' | 'expired' };

export class LoginLinksRepo {
  private readonly insertStmt;
  private readonly consumeStmt;
  private readonly byHashStmt;
  private readonly deleteOldStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare(
      'INSERT INTO login_links (token_hash, account_id, created_at, expires_at) VALUES (@tokenHash, @accountId, @createdAt, @expiresAt)',
    );
    // One statement marks and reads: two requests with the same link cannot both succeed, also
    // across processes (SQLite serialises writers).
    this.consumeStmt = db.prepare<[string, string, string], { account_id: string }>(
      'UPDATE login_links SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ? RETURNING account_id',
    );
    this.byHashStmt = db.prepare<[string], { used_at: string | null }>('SELECT used_at FROM login_links WHERE token_hash = ?');
    this.deleteOldStmt = db.prepare('DELETE FROM login_links WHERE expires_at <= ?');
  }

  insert(link: NewLoginLink): void {
    this.insertStmt.run(link);
  }

  consume(tokenHash: string, now: string): LinkUse {
    const row = this.consumeStmt.get(now, tokenHash, now);
    if (row) return { outcome: 'ok', accountId: row.account_id };
    const seen = this.byHashStmt.get(tokenHash);
    if (!seen) return { outcome: 'unknown' };
    return { outcome: seen.used_at === null ? 'expired' : 'used' };
  }

  /** Links past their expiry (used or not): nothing can be done with them any more. */
  deleteExpired(before: string): number {
    return this.deleteOldStmt.run(before).changes;
  }
}
