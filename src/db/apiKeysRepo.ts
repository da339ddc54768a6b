import type { Db } from './database.js';
import type { Account } from './accountsRepo.js';
import type { Plan } from '../services/plans.js';

export interface ApiKey {
  id: string;
  accountId: string;
  blogId: string | null;
  name: string;
  keyPrefix: string;
  scopes: string[];
  lastUsedAt: string | null;
  createdAt: string;
}

export interface NewApiKey extends ApiKey {
  keyHash: string;
}

interface KeyRow {
  id: string;
  account_id: string;
  blog_id: string | null;
  name: string;
  key_prefix: string;
  scopes: string;
  last_used_at: string | null;
  created_at: string;
}

interface KeyWithAccountRow extends KeyRow {
  plan: Plan;
  email: string | null;
  account_created_at: string;
  account_updated_at: string;
}

const toKey = (row: KeyRow): ApiKey => ({
  id: row.id,
  accountId: row.account_id,
  blogId: row.blog_id,
  name: row.name,
  keyPrefix: row.key_prefix,
  scopes: JSON.parse(row.scopes) as string[],
  lastUsedAt: row.last_used_at,
  createdAt: row.created_at,
});

export class ApiKeysRepo {
  private readonly insertStmt;
  private readonly byHashStmt;
  private readonly listByBlogStmt;
  private readonly revokeStmt;
  private readonly touchStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO api_keys (id, account_id, blog_id, name, key_hash, key_prefix, scopes, created_at)
       VALUES (@id, @accountId, @blogId, @name, @keyHash, @keyPrefix, @scopes, @createdAt)`,
    );
    // One read per request: the key and its account together, on the hash's unique index.
    this.byHashStmt = db.prepare<[string], KeyWithAccountRow>(
      `SELECT k.*, a.plan, a.email, a.created_at AS account_created_at, a.updated_at AS account_updated_at
         FROM api_keys k JOIN accounts a ON a.id = k.account_id
        WHERE k.key_hash = ? AND k.revoked_at IS NULL`,
    );
    this.listByBlogStmt = db.prepare<[string], KeyRow>(
      'SELECT * FROM api_keys WHERE blog_id = ? AND revoked_at IS NULL ORDER BY created_at DESC, id',
    );
    this.revokeStmt = db.prepare(
      'UPDATE api_keys SET revoked_at = ? WHERE id = ? AND blog_id = ? AND revoked_at IS NULL',
    );
    this.touchStmt = db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?');
  }

  insert(key: NewApiKey): void {
    this.insertStmt.run({ ...key, scopes: JSON.stringify(key.scopes) });
  }

  /** The active key with this hash and its account, or null when unknown or revoked. */
  findActiveByHash(hash: string): { key: ApiKey; account: Account } | null {
    const row = this.byHashStmt.get(hash);
    if (!row) return null;
    return {
      key: toKey(row),
      account: {
        id: row.account_id,
        email: row.email,
        plan: row.plan,
        createdAt: row.account_created_at,
        updatedAt: row.account_updated_at,
      },
    };
  }

  listActiveForBlog(blogId: string): ApiKey[] {
    return this.listByBlogStmt.all(blogId).map(toKey);
  }

  revoke(blogId: string, keyId: string, now: string): boolean {
    return this.revokeStmt.run(now, keyId, blogId).changes > 0;
  }

  touch(keyId: string, now: string): void {
    this.touchStmt.run(now, keyId);
  }
}
