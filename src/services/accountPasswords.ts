import type { Account, AccountsRepo } from '../db/accountsRepo.js';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../domain/errors.js';
import { isoNow, type Clock } from '../lib/clock.js';
import { grantOf, type AuthContext } from './authContext.js';
import { checkNewPassword, decoyHash, hashPassword, verifyPassword } from './passwords.js';
import type { SessionsService } from './sessions.js';

/** A password change ends sessions: how many. */
export interface PasswordChange {
  endedSessions: number;
}

/**
 * Passwords of accounts (docs/dashboard.md#passwords): set by the operator (`folio account
 * set-password`) or by the account (PUT /v1/account/password), checked at sign-in. Every change
 * ends the account's other sessions: whoever had the old password is signed out.
 */
export class AccountPasswords {
  constructor(private readonly deps: { accounts: AccountsRepo; sessions: SessionsService; clock: Clock }) {}

  /** The operator's: sets the password (and the sign-in email when given); ends every session. */
  async set(accountId: string, password: string, email: string | null = null): Promise<PasswordChange | null> {
    checkNewPassword(password, 'password');
    const account = await this.deps.accounts.findById(accountId);
    if (!account) return null;
    const signInEmail = email ?? account.email;
    if (signInEmail === null) throw new BadRequestError('the account has no email to sign in with: give one (--email)');
    if (await this.deps.accounts.emailTakenForSignIn(signInEmail, accountId)) throw new ConflictError(`another account already signs in with ${signInEmail}`);
    const hash = await hashPassword(password);
    await this.deps.accounts.setPassword(accountId, hash, email, isoNow(this.deps.clock));
    return { endedSessions: await this.deps.sessions.revokeAll(accountId) };
  }

  /**
   * PUT /v1/account/password: a session or a `*` key (a narrower key must not take over the
   * account's sign-in). The current password is required once one is set, so a borrowed
   * session cannot lock its owner out. Other sessions end; the calling one stays.
   */
  async change(auth: AuthContext, current: string | undefined, next: string): Promise<PasswordChange> {
    if (!grantOf(auth).scopes.includes('*')) throw new ForbiddenError('changing the password needs a dashboard session or a key with the * scope');
    checkNewPassword(next);
    const stored = await this.deps.accounts.passwordHash(auth.account.id);
    if (stored !== null) {
      if (current === undefined)
        throw new BadRequestError('current_password is required: the account has a password', {
          details: [{ field: 'current_password', message: 'is required' }],
        });
      if (!(await verifyPassword(current, stored))) throw new ForbiddenError('current_password is wrong');
    } else if (auth.account.email === null) {
      throw new BadRequestError('the account has no email to sign in with; an operator sets one with `folio account set-password <account_id> --email E`');
    }
    const hash = await hashPassword(next);
    if (!(await this.deps.accounts.setPassword(auth.account.id, hash, null, isoNow(this.deps.clock)))) throw new NotFoundError('account not found');
    return { endedSessions: await this.deps.sessions.revokeOthers(auth.account.id, auth.via === 'session' ? auth.session.id : null) };
  }

  /**
   * The account this email and password sign in, or null. An unknown email is checked against a
   * decoy hash, so both failures take the same time and give the same answer.
   */
  async signIn(email: string, password: string): Promise<Account | null> {
    const found = email.length <= 320 ? await this.deps.accounts.findByEmailWithPassword(email.trim()) : null;
    const ok = await verifyPassword(password.slice(0, 1024), found?.passwordHash ?? (await decoyHash()));
    return found && ok ? found.account : null;
  }
}
