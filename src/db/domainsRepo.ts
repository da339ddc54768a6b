import type { SqlScope, SqlTransaction } from './sql/sqlClient.js';

export type DomainStatus = 'pending_verification' | 'active';

export interface Domain {
  blogId: string;
  hostname: string;
  status: DomainStatus;
  /** The token the `_folio-challenge.<hostname>` TXT record must carry. */
  challengeToken: string;
  createdAt: string;
  /** When a pending registration lapses; null once active. */
  expiresAt: string | null;
  verifiedAt: string | null;
  lastCheckedAt: string | null;
  lastError: string | null;
}

interface DomainRow {
  blog_id: string;
  hostname: string;
  status: DomainStatus;
  challenge_token: string;
  created_at: string;
  expires_at: string | null;
  verified_at: string | null;
  last_checked_at: string | null;
  last_error: string | null;
}

const toDomain = (row: DomainRow): Domain => ({
  blogId: row.blog_id,
  hostname: row.hostname,
  status: row.status,
  challengeToken: row.challenge_token,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  verifiedAt: row.verified_at,
  lastCheckedAt: row.last_checked_at,
  lastError: row.last_error,
});

/** Identifies one registration: a blog may drop a hostname and register it again with a new token. */
export interface RegistrationKey {
  blogId: string;
  hostname: string;
  challengeToken: string;
}

export class DomainsRepo {
  constructor(private readonly sql: SqlScope) {}

  /** The same queries inside a transaction. */
  in(tx: SqlTransaction): DomainsRepo {
    return new DomainsRepo(tx);
  }

  async insert(domain: Pick<Domain, 'blogId' | 'hostname' | 'challengeToken' | 'createdAt' | 'expiresAt'>): Promise<void> {
    await this.sql.run(
      `INSERT INTO domains (blog_id, hostname, status, challenge_token, created_at, expires_at)
       VALUES (?, ?, 'pending_verification', ?, ?, ?)`,
      [domain.blogId, domain.hostname, domain.challengeToken, domain.createdAt, domain.expiresAt ?? null],
    );
  }

  async findByBlog(blogId: string): Promise<Domain | null> {
    const row = await this.sql.get<DomainRow>('SELECT * FROM domains WHERE blog_id = ?', [blogId]);
    return row ? toDomain(row) : null;
  }

  /** The blog the hostname is active for, if any (at most one: a partial unique index). */
  async findActiveByHostname(hostname: string): Promise<Domain | null> {
    const row = await this.sql.get<DomainRow>(`SELECT * FROM domains WHERE hostname = ? AND status = 'active'`, [hostname]);
    return row ? toDomain(row) : null;
  }

  async delete(blogId: string): Promise<boolean> {
    return (await this.sql.run('DELETE FROM domains WHERE blog_id = ?', [blogId])).changes > 0;
  }

  /** Deletes this registration only, not a newer one of the same blog. */
  async deleteRegistration(key: RegistrationKey): Promise<boolean> {
    const result = await this.sql.run('DELETE FROM domains WHERE blog_id = ? AND hostname = ? AND challenge_token = ?', [
      key.blogId,
      key.hostname,
      key.challengeToken,
    ]);
    return result.changes > 0;
  }

  /** Removes pending registrations whose expiry is at or before `now`; returns how many. */
  async deleteExpired(now: string): Promise<number> {
    return (await this.sql.run(`DELETE FROM domains WHERE status = 'pending_verification' AND expires_at <= ?`, [now])).changes;
  }

  /** Records a check that did not verify the registration (it stays pending). */
  async recordCheck(check: RegistrationKey & { checkedAt: string; lastError: string }): Promise<void> {
    await this.sql.run(
      `UPDATE domains SET last_checked_at = ?, last_error = ?
        WHERE blog_id = ? AND hostname = ? AND challenge_token = ? AND status = 'pending_verification'`,
      [check.checkedAt, check.lastError, check.blogId, check.hostname, check.challengeToken],
    );
  }

  /**
   * Makes the pending registration active. Throws the unique violation of
   * `domains_active_hostname` when another blog has the hostname active.
   */
  async activate(key: RegistrationKey & { checkedAt: string }): Promise<boolean> {
    const result = await this.sql.run(
      `UPDATE domains SET status = 'active', expires_at = NULL, verified_at = ?, last_checked_at = ?, last_error = NULL
        WHERE blog_id = ? AND hostname = ? AND challenge_token = ? AND status = 'pending_verification'`,
      [key.checkedAt, key.checkedAt, key.blogId, key.hostname, key.challengeToken],
    );
    return result.changes > 0;
  }

  /** Notes on every other pending registration of the hostname why it can no longer verify. */
  async markLost(hostname: string, winner: string, lastError: string): Promise<void> {
    await this.sql.run(
      `UPDATE domains SET last_error = ?
        WHERE hostname = ? AND status = 'pending_verification' AND blog_id <> ?`,
      [lastError, hostname, winner],
    );
  }

  /** Pending registrations, least recently checked first (the background check's work list). */
  async listPendingForChecks(limit: number): Promise<Domain[]> {
    const rows = await this.sql.all<DomainRow>(
      `SELECT * FROM domains WHERE status = 'pending_verification' ORDER BY COALESCE(last_checked_at, ''), blog_id LIMIT ?`,
      [limit],
    );
    return rows.map(toDomain);
  }

  async listActive(): Promise<Domain[]> {
    return (await this.sql.all<DomainRow>(`SELECT * FROM domains WHERE status = 'active'`)).map(toDomain);
  }
}
