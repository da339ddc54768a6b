import { randomUUID } from 'node:crypto';
import type { Db } from '../db/database.js';
import type { Account, AccountsRepo } from '../db/accountsRepo.js';
import type { ApiKeysRepo } from '../db/apiKeysRepo.js';
import { isoNow, type Clock } from '../clock.js';
import { generateKey, hashKey, keyPrefix } from './keyMaterial.js';
import type { Plan } from './plans.js';

export interface CreatedAccount {
  account: Account;
  /** The account key in full: shown once, never stored. */
  apiKey: string;
}

/** Accounts are managed from the CLI (decisions.md "Accounts and the first key"), not the API. */
export class AccountsService {
  constructor(
    private readonly db: Db,
    private readonly accounts: AccountsRepo,
    private readonly keys: ApiKeysRepo,
    private readonly clock: Clock,
  ) {}

  create(input: { email?: string; plan: Plan }): CreatedAccount {
    const now = isoNow(this.clock);
    const account: Account = { id: randomUUID(), email: input.email ?? null, plan: input.plan, createdAt: now, updatedAt: now };
    const apiKey = generateKey();
    this.db
      .transaction(() => {
        this.accounts.insert(account);
        this.keys.insert({
          id: randomUUID(),
          accountId: account.id,
          blogId: null,
          name: 'Account key',
          keyHash: hashKey(apiKey),
          keyPrefix: keyPrefix(apiKey),
          scopes: ['*'],
          lastUsedAt: null,
          createdAt: now,
        });
      })
      .immediate();
    return { account, apiKey };
  }

  list(): Account[] {
    return this.accounts.list();
  }

  /** Returns false when no such account exists. */
  setPlan(accountId: string, plan: Plan): boolean {
    return this.accounts.setPlan(accountId, plan, isoNow(this.clock));
  }

  /**
   * First start on an empty database: one enterprise account so `npm start` alone gives a
   * working key. Returns null when accounts already exist.
   */
  bootstrap(): CreatedAccount | null {
    const existing = this.db.transaction(() => this.accounts.count()).immediate();
    if (existing > 0) return null;
    return this.create({ plan: 'enterprise' });
  }
}
