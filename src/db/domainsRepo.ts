import type { Db } from './database.js';

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
  private readonly insertStmt;
  private readonly byBlogStmt;
  private readonly activeByHostStmt;
  private readonly deleteStmt;
  private readonly deleteRegistrationStmt;
  private readonly deleteExpiredStmt;
  private readonly recordCheckStmt;
  private readonly activateStmt;
  private readonly markLostStmt;
  private readonly pendingStmt;
  private readonly activeStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO domains (blog_id, hostname, status, challenge_token, created_at, expires_at)
       VALUES (@blogId, @hostname, 'pending_verification', @challengeToken, @createdAt, @expiresAt)`,
    );
    this.byBlogStmt = db.prepare<[string], DomainRow>('SELECT * FROM domains WHERE blog_id = ?');
    this.activeByHostStmt = db.prepare<[string], DomainRow>(`SELECT * FROM domains WHERE hostname = ? AND status = 'active'`);
    this.deleteStmt = db.prepare('DELETE FROM domains WHERE blog_id = ?');
    this.deleteRegistrationStmt = db.prepare(`DELETE FROM domains WHERE blog_id = @blogId AND hostname = @hostname AND challenge_token = @challengeToken`);
    this.deleteExpiredStmt = db.prepare(`DELETE FROM domains WHERE status = 'pending_verification' AND expires_at <= ?`);
    this.recordCheckStmt = db.prepare(
      `UPDATE domains SET last_checked_at = @checkedAt, last_error = @lastError
        WHERE blog_id = @blogId AND hostname = @hostname AND challenge_token = @challengeToken AND status = 'pending_verification'`,
    );
    this.activateStmt = db.prepare(
      `UPDATE domains SET status = 'active', expires_at = NULL, verified_at = @checkedAt, last_checked_at = @checkedAt, last_error = NULL
        WHERE blog_id = @blogId AND hostname = @hostname AND challenge_token = @challengeToken AND status = 'pending_verification'`,
    );
    this.markLostStmt = db.prepare(
      `UPDATE domains SET last_error = @lastError
        WHERE hostname = @hostname AND status = 'pending_verification' AND blog_id <> @winner`,
    );
    this.pendingStmt = db.prepare<[number], DomainRow>(
      `SELECT * FROM domains WHERE status = 'pending_verification' ORDER BY COALESCE(last_checked_at, ''), blog_id LIMIT ?`,
    );
    this.activeStmt = db.prepare<[], DomainRow>(`SELECT * FROM domains WHERE status = 'active'`);
  }

  insert(domain: Pick<Domain, 'blogId' | 'hostname' | 'challengeToken' | 'createdAt' | 'expiresAt'>): void {
    this.insertStmt.run(domain);
  }

  findByBlog(blogId: string): Domain | null {
    const row = this.byBlogStmt.get(blogId);
    return row ? toDomain(row) : null;
  }

  /** The blog the hostname is active for, if any (at most one: a partial unique index). */
  findActiveByHostname(hostname: string): Domain | null {
    const row = this.activeByHostStmt.get(hostname);
    return row ? toDomain(row) : null;
  }

  delete(blogId: string): boolean {
    return this.deleteStmt.run(blogId).changes > 0;
  }

  /** Deletes this registration only, not a newer one of the same blog. */
  deleteRegistration(key: RegistrationKey): boolean {
    return this.deleteRegistrationStmt.run(key).changes > 0;
  }

  /** Removes pending registrations whose expiry is at or before `now`; returns how many. */
  deleteExpired(now: string): number {
    return this.deleteExpiredStmt.run(now).changes;
  }

  /** Records a check that did not verify the registration (it stays pending). */
  recordCheck(check: RegistrationKey & { checkedAt: string; lastError: string }): void {
    this.recordCheckStmt.run(check);
  }

  /**
   * Makes the pending registration active. Throws the unique violation of
   * `domains_active_hostname` when another blog has the hostname active.
   */
  activate(key: RegistrationKey & { checkedAt: string }): boolean {
    return this.activateStmt.run(key).changes > 0;
  }

  /** Notes on every other pending registration of the hostname why it can no longer verify. */
  markLost(hostname: string, winner: string, lastError: string): void {
    this.markLostStmt.run({ hostname, winner, lastError });
  }

  /** Pending registrations, least recently checked first (the background check's work list). */
  listPendingForChecks(limit: number): Domain[] {
    return this.pendingStmt.all(limit).map(toDomain);
  }

  listActive(): Domain[] {
    return this.activeStmt.all().map(toDomain);
  }
}
