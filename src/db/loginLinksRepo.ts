import type { SqlWriter } from './sql/sqlClient.js';

export interface NewLoginLink {
  tokenHash: string;
  accountId: string;
  createdAt: string;
  expiresAt: string;
}

/** What consuming a link came to: the account it signs in, or why not. */
export type LinkUse = { outcome: 'ok'; accountId: string } | { outcome: 'unknown' | 'used' | 'expired' };

export class LoginLinksRepo {
  constructor(private readonly sql: SqlWriter) {}

  async insert(link: NewLoginLink): Promise<void> {
    await this.sql.run('INSERT INTO login_links (token_hash, account_id, created_at, expires_at) VALUES (?, ?, ?, ?)', [
      link.tokenHash,
      link.accountId,
      link.createdAt,
      link.expiresAt,
    ]);
  }

  async consume(tokenHash: string, now: string): Promise<LinkUse> {
    // One statement marks and reads: two requests with the same link cannot both succeed, also
    // across processes (SQLite serialises writers).
    const used = await this.sql.get<{ account_id: string }>(
      'UPDATE login_links SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ? RETURNING account_id',
      [now, tokenHash, now],
    );
    if (used) return { outcome: 'ok', accountId: used.account_id };
    const seen = await this.sql.get<{ used_at: string | null }>('SELECT used_at FROM login_links WHERE token_hash = ?', [tokenHash]);
    if (!seen) return { outcome: 'unknown' };
    return { outcome: seen.used_at === null ? 'expired' : 'used' };
  }

  /** Links past their expiry (used or not): nothing can be done with them any more. */
  async deleteExpired(before: string): Promise<number> {
    return (await this.sql.run('DELETE FROM login_links WHERE expires_at <= ?', [before])).changes;
  }
}
