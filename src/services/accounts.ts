import { randomUUID } from 'node:crypto';
import type { Db } from '../db/database.js';
import type { Account, AccountsRepo } from '../db/accountsRepo.js';
import type { ApiKeysRepo } from '../db/apiKeysRepo.js';
import type { BlogsRepo } from '../db/blogsRepo.js';
import type { JobsRepo } from '../db/jobsRepo.js';
import { isoNow, type Clock } from '../clock.js';
import { generateKey, hashKey, keyPrefix } from './keyMaterial.js';
import type { Plan } from './plans.js';

export interface CreatedAccount {
  account: Account;
  /** The account key in full: shown once, never stored. */
  apiKey: string;
}

export interface PlanChange {
  /** The plan before the change. */
  previous: Plan;
  /** Ids of the 'site' jobs recorded with the change, one per blog of the account (none when the plan was already set). */
  jobIds: number[];
}

/** Accounts are managed from the CLI (decisions.md "Accounts and the first key"), not the API. */
export class AccountsService {
  constructor(
    private readonly db: Db,
    private readonly accounts: AccountsRepo,
    private readonly keys: ApiKeysRepo,
    private readonly blogs: Pick<BlogsRepo, 'listByAccount'>,
    private readonly jobs: Pick<JobsRepo, 'insert'>,
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

  /**
   * Changes the plan and, in the same transaction, records a 'site' job for every blog of the
   * account: the theme keys a page carries depend on the plan, so a downgrade must take paid
   * theme fields off the live site and an upgrade must bring them back. The jobs are durable;
   * whichever process runs jobs (the server's tick, also at its start) carries them out, so a
   * change made from the CLI reaches the sites without this process rendering anything.
   * Returns null when no such account exists.
   */
  setPlan(accountId: string, plan: Plan): PlanChange | null {
    return this.db
      .transaction((): PlanChange | null => {
        const account = this.accounts.findById(accountId);
        if (!account) return null;
        if (account.plan === plan) return { previous: plan, jobIds: [] };
        const now = isoNow(this.clock);
        this.accounts.setPlan(accountId, plan, now);
        const jobIds = this.blogs
          .listByAccount(accountId)
          .map((blog) => this.jobs.insert({ blogId: blog.id, blogSlug: blog.slug, kind: 'site', payload: { reason: 'plan_changed' }, now }));
        return { previous: account.plan, jobIds };
      })
      .immediate();
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
