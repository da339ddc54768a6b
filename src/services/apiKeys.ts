import type { ApiKey, ApiKeysRepo } from '../db/apiKeysRepo.js';
import type { BlogsRepo } from '../db/blogsRepo.js';
import { isDatabaseBusy } from '../db/database.js';
import { isoNow, type Clock } from '../lib/clock.js';
import { ConflictError, ForbiddenError, NotFoundError, UnauthorizedError } from '../domain/errors.js';
import { canGrant, grantOf, type AuthContext, type GrantableScope } from './authContext.js';
import { checkExpiry, isExpired } from './keyExpiry.js';
import { hashKey, KEY_PREFIX, mintKey } from './keyMaterial.js';

/** last_used_at is written at most this often per key, so reads do not turn into writes. */
const TOUCH_INTERVAL_MS = 60_000;

export interface CreatedKey {
  key: ApiKey;
  /** The full key, returned only in the creation response. */
  secret: string;
}

/** What a new key is made with (the API's body, defaults applied, `expires_at` parsed). */
export interface KeyRequest {
  name: string;
  scopes: GrantableScope[];
  /** null: never expires. */
  expiresAt: Date | null;
}

export class ApiKeysService {
  private readonly lastTouched = new Map<string, number>();

  constructor(
    private readonly keys: ApiKeysRepo,
    private readonly blogs: BlogsRepo,
    private readonly clock: Clock,
  ) {}

  /** Resolves a raw Authorization header value; throws 401 for anything but a live key. */
  authenticate(authorization: string | undefined): AuthContext {
    if (!authorization) throw new UnauthorizedError('missing Authorization header: send "Authorization: Bearer pk_live_..."');
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match || !match[1]!.startsWith(KEY_PREFIX)) {
      throw new UnauthorizedError('Authorization must be "Bearer pk_live_..."');
    }
    const found = this.keys.findActiveByHash(hashKey(match[1]!));
    if (!found) throw new UnauthorizedError('unknown or revoked API key');
    // Compared with the clock on every request, after the lookup: a key served from memory
    // (versionedCache.ts) expires on time as well.
    if (isExpired(found.key, this.clock.now())) {
      throw new UnauthorizedError(
        `this API key expired at ${found.key.expiresAt}; use a key that has not expired, or make a new one (POST /v1/account/api-keys, folio account create-key)`,
      );
    }
    this.touch(found.key.id);
    return { via: 'key', ...found };
  }

  create(auth: AuthContext, blogId: string, input: KeyRequest): CreatedKey {
    const blog = this.blogs.findOwned(auth.account.id, blogId);
    if (!blog) throw new NotFoundError('blog not found');
    return this.mint(auth, blog.id, input);
  }

  list(auth: AuthContext, blogId: string): ApiKey[] {
    const blog = this.blogs.findOwned(auth.account.id, blogId);
    if (!blog) throw new NotFoundError('blog not found');
    return this.keys.listActiveForBlog(blog.id);
  }

  revoke(auth: AuthContext, blogId: string, keyId: string): void {
    const blog = this.blogs.findOwned(auth.account.id, blogId);
    if (!blog) throw new NotFoundError('blog not found');
    if (!this.keys.revoke(blog.id, keyId, isoNow(this.clock))) throw new NotFoundError('API key not found');
    this.lastTouched.delete(keyId);
  }

  /** A key of the caller's account bound to no blog (POST /account/api-keys). */
  createAccountKey(auth: AuthContext, input: KeyRequest): CreatedKey {
    return this.mint(auth, null, input);
  }

  /** The caller's active account keys, newest first; blog-bound keys are listed per blog. */
  listAccountKeys(auth: AuthContext): ApiKey[] {
    return this.keys.listActiveAccountKeys(auth.account.id);
  }

  /**
   * Revokes one of the caller's account keys, the calling key included. The last one is
   * refused: with it gone the account could only be reached through blog-bound keys, if any,
   * and an operator would have to mint a new one (`folio account create-key`).
   */
  revokeAccountKey(auth: AuthContext, keyId: string): void {
    const result = this.keys.revokeChecked(keyId, isoNow(this.clock), {
      accountId: auth.account.id,
      accountKeysOnly: true,
      keepLastAccountKey: true,
    });
    if (result.outcome === 'not_found') throw new NotFoundError('API key not found');
    if (result.outcome === 'last_account_key') {
      throw new ConflictError("this is the account's last account key; create another account key first (POST /v1/account/api-keys), then revoke this one");
    }
    this.lastTouched.delete(keyId);
  }

  private mint(auth: AuthContext, blogId: string | null, input: KeyRequest): CreatedKey {
    // A key may hand out only what it holds itself, or a limited key could mint a full one.
    if (!input.scopes.every((scope) => canGrant(grantOf(auth), scope))) throw new ForbiddenError('a key cannot create a key with scopes it does not have');
    const now = this.clock.now();
    checkExpiry(input.expiresAt, now);
    const { row, key, secret } = mintKey({
      accountId: auth.account.id,
      blogId,
      name: input.name,
      scopes: [...new Set(input.scopes)],
      createdAt: now.toISOString(),
      expiresAt: input.expiresAt?.toISOString() ?? null,
    });
    this.keys.insert(row);
    return { key, secret };
  }

  private touch(keyId: string): void {
    const now = this.clock.now().getTime();
    const last = this.lastTouched.get(keyId);
    if (last !== undefined && now - last < TOUCH_INTERVAL_MS) return;
    if (this.lastTouched.size > 100_000) this.lastTouched.clear();
    try {
      this.keys.touch(keyId, new Date(now).toISOString());
    } catch (err) {
      // Bookkeeping only: while another process holds the write lock, the request goes on and
      // the next use records the time.
      if (isDatabaseBusy(err)) return;
      throw err;
    }
    this.lastTouched.set(keyId, now);
  }
}
