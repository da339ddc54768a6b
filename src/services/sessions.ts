import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Session, SessionsRepo } from '../db/sessionsRepo.js';
import { NotFoundError } from '../domain/errors.js';
import type { Clock } from '../lib/clock.js';
import type { AuthContext, SessionAuth } from './authContext.js';

/** A session lives this long after its last use (sliding: each use moves the end). */
export const SESSION_LIFETIME_MS = 30 * 24 * 3600 * 1000;
/** last_used_at and expires_at are written at most this often, so reads do not turn into writes. */
export const SESSION_TOUCH_INTERVAL_MS = 3600 * 1000;
const MAX_USER_AGENT = 120;

/** A cookie secret carries 256 random bits, so a fast hash is enough (as for API keys). */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** A session as GET /v1/account/sessions lists it. */
export interface SessionEntry {
  session: Session;
  current: boolean;
}

/** The sign-in of people in browsers: server-side rows named by the hash of the cookie's secret. */
export class SessionsService {
  constructor(private readonly deps: { sessions: SessionsRepo; clock: Clock }) {}

  /** A new session for the account; `secret` goes in the cookie and is never stored. */
  async create(accountId: string, userAgent: string): Promise<{ session: Session; secret: string }> {
    const now = this.deps.clock.now();
    const secret = randomBytes(32).toString('base64url');
    const session: Session = {
      id: randomUUID(),
      accountId,
      csrfToken: randomBytes(32).toString('base64url'),
      createdAt: now.toISOString(),
      lastUsedAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + SESSION_LIFETIME_MS).toISOString(),
      userAgent: userAgentLabel(userAgent),
    };
    await this.deps.sessions.insert({ ...session, secretHash: hashSecret(secret) });
    return { session, secret };
  }

  /**
   * The live session whose cookie holds `secret`, or null (unknown, revoked, expired).
   * `renewed`: this use moved its end forward (the cookie should be sent again with it).
   */
  async authenticate(secret: string): Promise<{ auth: SessionAuth; renewed: boolean } | null> {
    if (secret === '' || secret.length > 200) return null;
    const found = await this.deps.sessions.findByHash(hashSecret(secret));
    if (!found) return null;
    const now = this.deps.clock.now();
    if (found.session.expiresAt <= now.toISOString()) return null;
    const session = this.slide(found.session, now);
    return { auth: { via: 'session', account: found.account, session }, renewed: session !== found.session };
  }

  async list(auth: AuthContext): Promise<SessionEntry[]> {
    const current = auth.via === 'session' ? auth.session.id : null;
    const live = await this.deps.sessions.listLive(auth.account.id, this.deps.clock.now().toISOString());
    return live.map((session) => ({ session, current: session.id === current }));
  }

  /** Ends one of the caller's sessions (the current one included: that is signing out). */
  async revoke(auth: AuthContext, sessionId: string): Promise<void> {
    if (!(await this.deps.sessions.delete(auth.account.id, sessionId))) throw new NotFoundError('session not found');
  }

  /** Ends one session by id for its account (sign-out). */
  async end(session: Session): Promise<void> {
    await this.deps.sessions.delete(session.accountId, session.id);
  }

  /** Every session of the account (account deletion takes them anyway, by cascade). */
  revokeAll(accountId: string): Promise<number> {
    return this.deps.sessions.deleteAll(accountId);
  }

  /** Every session of the account but one: a password change keeps only the browser that made it. */
  revokeOthers(accountId: string, keepId: string | null): Promise<number> {
    return keepId === null ? this.deps.sessions.deleteAll(accountId) : this.deps.sessions.deleteOthers(accountId, keepId);
  }

  /** Rows of sessions nobody can use any more (the scheduler's housekeeping). */
  deleteExpired(): Promise<number> {
    return this.deps.sessions.deleteExpired(this.deps.clock.now().toISOString());
  }

  /** Moves the end of a used session forward, writing the row at most once per touch interval. */
  private slide(session: Session, now: Date): Session {
    if (now.getTime() - Date.parse(session.lastUsedAt) < SESSION_TOUCH_INTERVAL_MS) return session;
    const lastUsedAt = now.toISOString();
    const expiresAt = new Date(now.getTime() + SESSION_LIFETIME_MS).toISOString();
    // Bookkeeping only: the request does not wait for the write (which waits while another
    // process holds the write lock); if it fails, a later use slides the session.
    this.deps.sessions.touch(session.id, lastUsedAt, expiresAt).catch(() => undefined);
    return { ...session, lastUsedAt, expiresAt };
  }
}

/** "Firefox on Linux"-like labels would need a parser; the first characters are enough to tell sessions apart. */
function userAgentLabel(userAgent: string): string {
  return userAgent.replace(/[^\x20-\x7e]/g, '').slice(0, MAX_USER_AGENT);
}
