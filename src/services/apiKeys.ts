import type { ApiKey, ApiKeysRepo } from '../db/apiKeysRepo.js';
import type { BlogsRepo } from '../db/blogsRepo.js';
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
  async authenticate(authorization: string | undefined): Promise<AuthContext> {
    if (!authorization) throw new UnauthorizedError('missing Authorization header: send "Authorization: Bearer pk_live_..."');
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match || !match[1]!.startsWith(KEY_PREFIX)) {
      throw new UnauthorizedError('Authorization must be "Bearer pk_live_..."');
    }
    const found = await this.keys.findActiveByHash(hashKey(match[1]!));
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

  async create(auth: AuthContext, blogId: string, input: KeyRequest): Promise<CreatedKey> {
    const blog = await this.blogs.findOwned(auth.account.id, blogId);
    if (!blog) throw new NotFoundError('blog not found');
    return this.mint(auth, blog.id, input);
  }

  async list(auth: AuthContext, blogId: string): Promise<ApiKey[]> {
    const blog = await this.blogs.findOwned(auth.account.id, blogId);
    if (!blog) throw new NotFoundError('blog not found');
    return this.keys.listActiveForBlog(blog.id);
  }

  async revoke(auth: AuthContext, blogId: string, keyId: string): Promise<void> {
    const blog = await this.blogs.findOwned(auth.account.id, blogId);
    if (!blog) throw new NotFoundError('blog not found');
    if (!(await this.keys.revoke(blog.id, keyId, isoNow(this.clock)))) throw new NotFoundError('API key not found');
    this.lastTouched.delete(keyId);
  }

  /** A key of the caller's account bound to no blog (POST /account/api-keys). */
  createAccountKey(auth: AuthContext, input: KeyRequest): Promise<CreatedKey> {
    return this.mint(auth, null, input);
  }

  /** The caller's active account keys, newest first; blog-bound keys are listed per blog. */
  listAccountKeys(auth: AuthContext): Promise<ApiKey[]> {
    return this.keys.listActiveAccountKeys(auth.account.id);
  }

  /**
   * Revokes one of the caller's account keys, the calling key included. The last one is
   * refused: with it gone the account could only be reached through blog-bound keys, if any,
   * and an operator would have to mint a new one (`folio account create-key`).
   */
  async revokeAccountKey(auth: AuthContext, keyId: string): Promise<void> {
    const result = await this.keys.revokeChecked(keyId, isoNow(this.clock), {
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

  private async mint(auth: AuthContext, blogId: string | null, input: KeyRequest): Promise<CreatedKey> {
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
    await this.keys.insert(row);
    return { key, secret };
  }

  private touch(keyId: string): void {
    const now = this.clock.now().getTime();
    const last = this.lastTouched.get(keyId);
    if (last !== undefined && now - last < TOUCH_INTERVAL_MS) return;
    if (this.lastTouched.size > 100_000) this.lastTouched.clear();
    this.lastTouched.set(keyId, now);
    // Bookkeeping only: the request does not wait for the write (which waits while another
    // process holds the write lock); if it fails, the next use records the time.
    this.keys.touch(keyId, new Date(now).toISOString()).catch(() => {
      if (this.lastTouched.get(keyId) === now) this.lastTouched.delete(keyId);
    });
  }
}
