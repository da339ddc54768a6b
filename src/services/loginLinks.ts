import { randomBytes } from 'node:crypto';
import type { AccountsRepo } from '../db/accountsRepo.js';
import type { LinkUse, LoginLinksRepo } from '../db/loginLinksRepo.js';
import type { Clock } from '../lib/clock.js';
import { hashSecret } from './sessions.js';

/** A sign-in link works this long, once. */
export const LOGIN_LINK_LIFETIME_MS = 15 * 60 * 1000;

export interface LoginLink {
  url: string;
  expiresAt: string;
}

/**
 * One-time sign-in links: what the first start prints and `folio account login-link` makes.
 * Only the token's hash is stored; the link is shown once.
 */
export class LoginLinksService {
  constructor(
    private readonly deps: {
      links: LoginLinksRepo;
      accounts: Pick<AccountsRepo, 'findById'>;
      clock: Clock;
      /** The public API base (`https://api.example.com/v1`): the dashboard is beside /v1. */
      apiBaseUrl: string;
    },
  ) {}

  /** A new link for the account, or null when no such account exists. */
  async create(accountId: string): Promise<LoginLink | null> {
    if (!(await this.deps.accounts.findById(accountId))) return null;
    const now = this.deps.clock.now();
    const token = randomBytes(32).toString('base64url');
    const expiresAt = new Date(now.getTime() + LOGIN_LINK_LIFETIME_MS).toISOString();
    await this.deps.links.insert({ tokenHash: hashSecret(token), accountId, createdAt: now.toISOString(), expiresAt });
    return { url: `${dashboardBase(this.deps.apiBaseUrl)}/sign-in/${token}`, expiresAt };
  }

  /** Uses the link up (atomically, once) and says whose it was, or why it no longer works. */
  async consume(token: string): Promise<LinkUse> {
    if (!/^[A-Za-z0-9_-]{1,100}$/.test(token)) return { outcome: 'unknown' };
    return this.deps.links.consume(hashSecret(token), this.deps.clock.now().toISOString());
  }

  async deleteExpired(): Promise<number> {
    return this.deps.links.deleteExpired(this.deps.clock.now().toISOString());
  }
}

/** `https://api.example.com/v1` → `https://api.example.com/dashboard`. */
export function dashboardBase(apiBaseUrl: string): string {
  return `${apiBaseUrl.replace(/\/+$/, '').replace(/\/v1$/, '')}/dashboard`;
}
