import { atomically, type SqlScope, type SqlTransaction } from './sql/sqlClient.js';
import { type ChangeVersion, VersionedCache } from './versionedCache.js';
import type { Account } from './accountsRepo.js';
import type { Plan } from '../domain/plans.js';

export interface ApiKey {
  id: string;
  accountId: string;
  blogId: string | null;
  name: string;
  keyPrefix: string;
  scopes: string[];
  lastUsedAt: string | null;
  createdAt: string;
  /** ISO 8601 UTC with milliseconds; null: never expires. */
  expiresAt: string | null;
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
  expires_at: string | null;
}

/** An active key of an account with the slug of the blog it is bound to (null for account keys). */
export interface AccountKeyEntry {
  key: ApiKey;
  blogSlug: string | null;
}

/**
 * What revoking a key came to. `last_account_key`: refused, because it is the only active
 * account key left and the caller asked to keep one.
 */
export type KeyRevocation = { outcome: 'not_found' } | { outcome: 'revoked' | 'last_account_key'; key: ApiKey };

export interface RevokeKeyOptions {
  /** Only this account's keys count as found (the API); the CLI passes none. */
  accountId?: string;
  /** Only account keys (blog_id NULL) count as found. */
  accountKeysOnly: boolean;
  /** Refuse to revoke the account's last active account key. */
  keepLastAccountKey: boolean;
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
  expiresAt: row.expires_at,
});

// One read per request: the key and its account together, on the hash's unique index.
const BY_HASH = `SELECT k.*, a.plan, a.email, a.created_at AS account_created_at, a.updated_at AS account_updated_at
   FROM api_keys k JOIN accounts a ON a.id = k.account_id
  WHERE k.key_hash = ? AND k.revoked_at IS NULL`;
const ACTIVE_BY_ID = 'SELECT * FROM api_keys WHERE id = ? AND revoked_at IS NULL';
// Only keys that still work count: an expired account key does not keep the account reachable.
const COUNT_ACCOUNT_KEYS =
  'SELECT COUNT(*) AS n FROM api_keys WHERE blog_id IS NULL AND account_id = ? AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)';

export class ApiKeysRepo {
  /** Absent without a version, and always in a transaction (in()): such reads neither use nor fill it. */
  private readonly byHashCache: VersionedCache<{ key: ApiKey; account: Account } | null> | undefined;

  constructor(
    private readonly sql: SqlScope,
    version?: ChangeVersion,
  ) {
    this.byHashCache = version ? new VersionedCache(version) : undefined;
  }

  /** The same queries inside a transaction, without the cache. */
  in(tx: SqlTransaction): ApiKeysRepo {
    return new ApiKeysRepo(tx);
  }

  async insert(key: NewApiKey): Promise<void> {
    await this.sql.run(
      `INSERT INTO api_keys (id, account_id, blog_id, name, key_hash, key_prefix, scopes, created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [key.id, key.accountId, key.blogId, key.name, key.keyHash, key.keyPrefix, JSON.stringify(key.scopes), key.createdAt, key.expiresAt],
    );
  }

  /**
   * The active key with this hash and its account, or null when unknown or revoked. An expired
   * key is still found: the caller compares `expiresAt` with its clock, also for a cached key.
   */
  async findActiveByHash(hash: string): Promise<{ key: ApiKey; account: Account } | null> {
    // From memory until anything is written (versionedCache.ts): revocations still apply at once.
    return this.byHashCache ? await this.byHashCache.get(hash, async () => this.readActiveByHash(hash)) : await this.readActiveByHash(hash);
  }

  private async readActiveByHash(hash: string): Promise<{ key: ApiKey; account: Account } | null> {
    const row = await this.sql.get<KeyWithAccountRow>(BY_HASH, [hash]);
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

  async listActiveForBlog(blogId: string): Promise<ApiKey[]> {
    return (await this.sql.all<KeyRow>('SELECT * FROM api_keys WHERE blog_id = ? AND revoked_at IS NULL ORDER BY created_at DESC, id', [blogId])).map(toKey);
  }

  async revoke(blogId: string, keyId: string, now: string): Promise<boolean> {
    return (await this.sql.run('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND blog_id = ? AND revoked_at IS NULL', [now, keyId, blogId])).changes > 0;
  }

  /** The account's active account keys (bound to no blog), newest first. */
  async listActiveAccountKeys(accountId: string): Promise<ApiKey[]> {
    // `blog_id IS NULL` can use api_keys_by_blog (blog_id, created_at); account keys are few.
    const rows = await this.sql.all<KeyRow>(
      'SELECT * FROM api_keys WHERE blog_id IS NULL AND account_id = ? AND revoked_at IS NULL ORDER BY created_at DESC, id',
      [accountId],
    );
    return rows.map(toKey);
  }

  /** Every active key of the account: account keys first, then blog-bound keys by blog slug. */
  async listActiveForAccount(accountId: string): Promise<AccountKeyEntry[]> {
    const rows = await this.sql.all<KeyRow & { blog_slug: string | null }>(
      `SELECT k.*, b.slug AS blog_slug FROM api_keys k LEFT JOIN blogs b ON b.id = k.blog_id
        WHERE k.account_id = ? AND k.revoked_at IS NULL
        ORDER BY k.blog_id IS NOT NULL, b.slug, k.created_at DESC, k.id`,
      [accountId],
    );
    return rows.map((row) => ({ key: toKey(row), blogSlug: row.blog_slug }));
  }

  async revokeChecked(keyId: string, now: string, options: RevokeKeyOptions): Promise<KeyRevocation> {
    // Check and update in one transaction: two revocations at once (the server and the CLI are
    // separate connections) must not both pass the "not the last account key" check.
    return atomically(this.sql, async (tx): Promise<KeyRevocation> => {
      const row = await tx.get<KeyRow>(ACTIVE_BY_ID, [keyId]);
      if (!row) return { outcome: 'not_found' };
      if (options.accountId !== undefined && row.account_id !== options.accountId) return { outcome: 'not_found' };
      if (options.accountKeysOnly && row.blog_id !== null) return { outcome: 'not_found' };
      const key = toKey(row);
      const working = row.expires_at === null || row.expires_at > now;
      if (row.blog_id === null && working && options.keepLastAccountKey && (await tx.get<{ n: number }>(COUNT_ACCOUNT_KEYS, [row.account_id, now]))!.n <= 1) {
        return { outcome: 'last_account_key', key };
      }
      await tx.run('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL', [now, keyId]);
      return { outcome: 'revoked', key };
    });
  }

  async touch(keyId: string, now: string): Promise<void> {
    await this.sql.run('UPDATE api_keys SET last_used_at = ? WHERE id = ?', [now, keyId]);
  }
}
