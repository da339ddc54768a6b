import type { Db } from './database.js';

export type DomainStatus = 'pending_verification' | 'active';

export interface Domain {
  blogId: string;
  hostname: string;
  status: DomainStatus;
  createdAt: string;
  verifiedAt: string | null;
  lastCheckedAt: string | null;
  lastError: string | null;
}

interface DomainRow {
  blog_id: string;
  hostname: string;
  status: DomainStatus;
  created_at: string;
  verified_at: string | null;
  last_checked_at: string | null;
  last_error: string | null;
}

const toDomain = (row: DomainRow): Domain => ({
  blogId: row.blog_id,
  hostname: row.hostname,
  status: row.status,
  createdAt: row.created_at,
  verifiedAt: row.verified_at,
  lastCheckedAt: row.last_checked_at,
  lastError: row.last_error,
});

export class DomainsRepo {
  private readonly insertStmt;
  private readonly byBlogStmt;
  private readonly byHostStmt;
  private readonly deleteStmt;
  private readonly recordCheckStmt;
  private readonly pendingStmt;
  private readonly activeStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO domains (blog_id, hostname, status, created_at) VALUES (@blogId, @hostname, @status, @createdAt)`,
    );
    this.byBlogStmt = db.prepare<[string], DomainRow>('SELECT * FROM domains WHERE blog_id = ?');
    this.byHostStmt = db.prepare<[string], DomainRow>('SELECT * FROM domains WHERE hostname = ?');
    this.deleteStmt = db.prepare('DELETE FROM domains WHERE blog_id = ?');
    this.recordCheckStmt = db.prepare(
      `UPDATE domains SET status = @status, last_checked_at = @checkedAt, last_error = @lastError,
              verified_at = CASE WHEN @status = 'active' AND verified_at IS NULL THEN @checkedAt ELSE verified_at END
        WHERE blog_id = @blogId AND hostname = @hostname`,
    );
    this.pendingStmt = db.prepare<[], DomainRow>(
      `SELECT * FROM domains ORDER BY COALESCE(last_checked_at, ''), blog_id`,
    );
    this.activeStmt = db.prepare<[], DomainRow>(`SELECT * FROM domains WHERE status = 'active'`);
  }

  insert(domain: Pick<Domain, 'blogId' | 'hostname' | 'status' | 'createdAt'>): void {
    this.insertStmt.run(domain);
  }

  findByBlog(blogId: string): Domain | null {
    const row = this.byBlogStmt.get(blogId);
    return row ? toDomain(row) : null;
  }

  findByHostname(hostname: string): Domain | null {
    const row = this.byHostStmt.get(hostname);
    return row ? toDomain(row) : null;
  }

  delete(blogId: string): boolean {
    return this.deleteStmt.run(blogId).changes > 0;
  }

  recordCheck(check: { blogId: string; hostname: string; status: DomainStatus; checkedAt: string; lastError: string | null }): void {
    this.recordCheckStmt.run(check);
  }

  /** Every domain, least recently checked first (the background check's work list). */
  listForChecks(): Domain[] {
    return this.pendingStmt.all().map(toDomain);
  }

  listActive(): Domain[] {
    return this.activeStmt.all().map(toDomain);
  }
}
