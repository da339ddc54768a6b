import { randomUUID } from 'node:crypto';
import type { Account, AccountsRepo } from '../db/accountsRepo.js';
import type { AccountKeyEntry, ApiKeysRepo, KeyRevocation } from '../db/apiKeysRepo.js';
import type { BlogsRepo } from '../db/blogsRepo.js';
import type { JobsRepo } from '../db/jobsRepo.js';
import { isoNow, type Clock } from '../lib/clock.js';
import type { CreatedKey } from './apiKeys.js';
import { checkExpiry } from './keyExpiry.js';
import { mintKey } from './keyMaterial.js';
import type { Plan } from '../domain/plans.js';
import { BadRequestError, ForbiddenError } from '../domain/errors.js';
import { grantOf, type AuthContext } from './authContext.js';
import type { PublishQueue } from '../domain/publishQueue.js';
import type { SqlClient, SqlTransaction } from '../db/sql/sqlClient.js';
import { retireBlog } from './blogs.js';

/** Name of the key `create` makes, and the default for new account keys (CLI and API). */
export const ACCOUNT_KEY_NAME = 'Account key';

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

export interface AccountsDeps {
  sql: SqlClient;
  accounts: AccountsRepo;
  keys: ApiKeysRepo;
  blogs: Pick<BlogsRepo, 'listByAccount' | 'countByAccount' | 'delete' | 'retireSlug' | 'in'>;
  jobs: Pick<JobsRepo, 'insert' | 'in'>;
  clock: Clock;
  /** Starts the site removals of a deletion at once; without it (the CLI) the server's job tick runs them. */
  runner?: PublishQueue;
}

/** Accounts are created and re-planned from the CLI (docs/cli.md); the API shows and deletes the caller's own. */
export class AccountsService {
  constructor(private readonly deps: AccountsDeps) {}

  create(input: { email?: string; plan: Plan }): Promise<CreatedAccount> {
    return this.deps.sql.transaction((tx) => this.insert(tx, input));
  }

  /** The account and its account key, in the caller's transaction. */
  private async insert(tx: SqlTransaction, input: { email?: string; plan: Plan }): Promise<CreatedAccount> {
    const now = isoNow(this.deps.clock);
    const account: Account = { id: randomUUID(), email: input.email ?? null, plan: input.plan, createdAt: now, updatedAt: now };
    const { row, secret } = mintKey({ accountId: account.id, blogId: null, name: ACCOUNT_KEY_NAME, scopes: ['*'], createdAt: now, expiresAt: null });
    await this.deps.accounts.in(tx).insert(account);
    await this.deps.keys.in(tx).insert(row);
    return { account, apiKey: secret };
  }

  /** How many blogs the account has, for GET /v1/account's usage. */
  blogCount(accountId: string): Promise<number> {
    return this.deps.blogs.countByAccount(accountId);
  }

  /**
   * DELETE /v1/account: the caller's own account, with a key holding `*` and its id repeated in
   * `confirm`, so a slip or a narrow key cannot delete everything.
   */
  async deleteOwn(auth: AuthContext, confirm: string): Promise<void> {
    if (!grantOf(auth).scopes.includes('*')) throw new ForbiddenError('deleting the account needs a key with the * scope');
    if (confirm !== auth.account.id) {
      throw new BadRequestError("confirm must be this account's id (GET /v1/account gives it)", {
        details: [{ field: 'confirm', message: "is not this account's id" }],
      });
    }
    await this.delete(auth.account.id);
  }

  /**
   * Deletes the account in one write transaction: every blog as a blog delete does (the blog
   * rows, and a durable `site_delete` job each that removes its objects and search index, also
   * after a restart or a store outage), then the account row, which takes its keys with it. The
   * jobs then run in the background. False when no such account exists.
   */
  async delete(accountId: string): Promise<boolean> {
    const { deleted, jobIds } = await this.deps.sql.transaction(async (tx) => {
      const accounts = this.deps.accounts.in(tx);
      const jobIds: number[] = [];
      if (!(await accounts.findById(accountId))) return { deleted: false, jobIds };
      const now = isoNow(this.deps.clock);
      const scope = { blogs: this.deps.blogs.in(tx), jobs: this.deps.jobs.in(tx) };
      for (const blog of await scope.blogs.listByAccount(accountId)) jobIds.push(await retireBlog(scope, blog, now));
      return { deleted: await accounts.delete(accountId), jobIds };
    });
    // One blog's removal does not wait for another's: each starts on its own blog's queue.
    for (const id of jobIds) this.deps.runner?.runInBackground([id]);
    return deleted;
  }

  list(): Promise<Account[]> {
    return this.deps.accounts.list();
  }

  /**
   * Changes the plan and, in the same transaction, records a 'site' job for every blog of the
   * account: the theme keys a page carries depend on the plan, so a downgrade must take paid
   * theme fields off the live site and an upgrade must bring them back. The jobs are durable;
   * whichever process runs jobs (the server's tick, also at its start) carries them out, so a
   * change made from the CLI reaches the sites without this process rendering anything.
   * Returns null when no such account exists.
   */
  setPlan(accountId: string, plan: Plan): Promise<PlanChange | null> {
    return this.deps.sql.transaction(async (tx): Promise<PlanChange | null> => {
      const accounts = this.deps.accounts.in(tx);
      const account = await accounts.findById(accountId);
      if (!account) return null;
      if (account.plan === plan) return { previous: plan, jobIds: [] };
      const now = isoNow(this.deps.clock);
      await accounts.setPlan(accountId, plan, now);
      const jobs = this.deps.jobs.in(tx);
      const jobIds: number[] = [];
      for (const blog of await this.deps.blogs.in(tx).listByAccount(accountId)) {
        jobIds.push(await jobs.insert({ blogId: blog.id, blogSlug: blog.slug, kind: 'site', payload: { reason: 'plan_changed' }, now }));
      }
      return { previous: account.plan, jobIds };
    });
  }

  /** Every active key of the account, blog-bound ones included; null when no such account exists. */
  async listKeys(accountId: string): Promise<AccountKeyEntry[] | null> {
    if (!(await this.deps.accounts.findById(accountId))) return null;
    return this.deps.keys.listActiveForAccount(accountId);
  }

  /**
   * A new full-scope account key: the operator's way back in after the last account key was
   * revoked, or when one leaked. Null when no such account exists. `expiresAt` has the API's bounds.
   */
  async createKey(accountId: string, name: string = ACCOUNT_KEY_NAME, expiresAt: Date | null = null): Promise<CreatedKey | null> {
    if (!(await this.deps.accounts.findById(accountId))) return null;
    checkExpiry(expiresAt, this.deps.clock.now());
    const { row, key, secret } = mintKey({
      accountId,
      blogId: null,
      name,
      scopes: ['*'],
      createdAt: isoNow(this.deps.clock),
      expiresAt: expiresAt?.toISOString() ?? null,
    });
    await this.deps.keys.insert(row);
    return { key, secret };
  }

  /**
   * Revokes any active key of any account (operator power). The account's last account key is
   * refused unless `force`, so an account is not locked out by a slip.
   */
  revokeKey(keyId: string, options: { force: boolean }): Promise<KeyRevocation> {
    return this.deps.keys.revokeChecked(keyId, isoNow(this.deps.clock), { accountKeysOnly: false, keepLastAccountKey: !options.force });
  }

  /**
   * First start on an empty database: one account on `plan` (FOLIO_DEFAULT_PLAN) so `npm start`
   * alone gives a working key. Returns null when accounts already exist.
   */
  bootstrap(plan: Plan): Promise<CreatedAccount | null> {
    // Counted and created in one transaction: nodes started together on one empty PostgreSQL
    // database (#32) conflict here (SERIALIZABLE), and the ones retried find the account made.
    return this.deps.sql.transaction(async (tx) => ((await this.deps.accounts.in(tx).count()) > 0 ? null : this.insert(tx, { plan })));
  }
}
