/** `folio account …`: accounts, their plans and their keys (the operator's side; the API has no account creation). */
import type { Config } from '../config/config.js';
import { createAccounts } from '../compose/services.js';
import { withDatabase } from './cliDatabase.js';
import type { AccountsService } from '../services/accounts.js';
import { isPlan, planSummary, PLANS } from '../domain/plans.js';
import { systemClock } from '../lib/clock.js';
import { CommandFailed, UsageError } from './cliErrors.js';
import { parseExpires } from './expiresOption.js';
import type { Invocation } from './invocation.js';

const out = (line: string): void => void process.stdout.write(`${line}\n`);

/** The accounts service on its own connection, closed after `work`. */
function withAccounts<T>(config: Config, work: (accounts: AccountsService) => T | Promise<T>): Promise<T> {
  return withDatabase(config, ({ sql, repos }) => work(createAccounts({ sql, repos, clock: systemClock })));
}

/**
 * `folio account create`: on `--plan`, else FOLIO_DEFAULT_PLAN. The plan and what it allows are
 * printed, so an operator sees at once whether the account can have several blogs or a domain.
 */
export async function accountCreate(config: Config, { values }: Invocation): Promise<number> {
  const plan = values.string('plan') ?? config.defaultPlan;
  if (!isPlan(plan)) throw new UsageError(`unknown plan "${plan}"; expected one of ${PLANS.join(', ')}`);
  const email = values.string('email');
  const { account, apiKey } = await withAccounts(config, (accounts) => accounts.create({ plan, ...(email ? { email } : {}) }));
  if (values.boolean('json')) {
    out(JSON.stringify({ account_id: account.id, plan: account.plan, api_key: apiKey }));
    return 0;
  }
  const why =
    values.string('plan') !== undefined
      ? '--plan'
      : config.explicitDefaultPlan
        ? 'FOLIO_DEFAULT_PLAN'
        : 'the default; FOLIO_DEFAULT_PLAN or --plan choose another';
  out(`Created account ${account.id} on the ${account.plan} plan (${why}): ${planSummary(account.plan)}.`);
  out(`API key (shown once, store it now): ${apiKey}`);
  return 0;
}

export async function accountList(config: Config, { values }: Invocation): Promise<number> {
  const accounts = await withAccounts(config, (service) => service.list());
  if (values.boolean('json')) {
    out(JSON.stringify(accounts.map((a) => ({ account_id: a.id, email: a.email, plan: a.plan, created_at: a.createdAt }))));
  } else if (accounts.length === 0) {
    out('No accounts.');
  } else {
    for (const a of accounts) out(`${a.id}  ${a.plan.padEnd(10)}  ${a.createdAt}  ${a.email ?? ''}`);
  }
  return 0;
}

export async function accountSetPlan(config: Config, { positionals }: Invocation): Promise<number> {
  const [accountId, plan] = positionals as [string, string];
  if (!isPlan(plan)) throw new UsageError(`unknown plan "${plan}"; expected one of ${PLANS.join(', ')}`);
  const change = await withAccounts(config, (accounts) => accounts.setPlan(accountId, plan));
  if (!change) throw new UsageError(`no account with id ${accountId}`);
  if (change.previous === plan) {
    out(`Account ${accountId} is already on the ${plan} plan; nothing changed.`);
    return 0;
  }
  // The re-render jobs are recorded with the change; this process does not render (docs/cli.md).
  const blogs = change.jobIds.length;
  out(`Account ${accountId} is now on the ${plan} plan (was ${change.previous}).`);
  out(
    blogs === 0 ? 'It has no blogs to re-render.' : `${blogs} blog${blogs === 1 ? '' : 's'} will be re-rendered by the running server, or at its next start.`,
  );
  return 0;
}

/** `folio account keys <account_id>`: the operator's view of an account's keys. */
export async function accountKeys(config: Config, { values, positionals }: Invocation): Promise<number> {
  const [accountId] = positionals as [string];
  const entries = await withAccounts(config, (accounts) => accounts.listKeys(accountId));
  if (!entries) throw new CommandFailed(`no account with id ${accountId}`, 2);
  if (values.boolean('json')) {
    const rows = entries.map(({ key, blogSlug }) => ({
      id: key.id,
      name: key.name,
      key_prefix: key.keyPrefix,
      scopes: key.scopes,
      blog_id: key.blogId,
      blog_slug: blogSlug,
      last_used_at: key.lastUsedAt,
      created_at: key.createdAt,
      expires_at: key.expiresAt,
    }));
    out(JSON.stringify(rows));
  } else if (entries.length === 0) {
    out(`Account ${accountId} has no active keys; make one with: folio account create-key ${accountId}`);
  } else {
    for (const { key, blogSlug } of entries) {
      const bound = key.blogId === null ? 'account' : `blog ${blogSlug ?? key.blogId}`;
      out(
        `${key.id}  ${key.keyPrefix}  ${bound.padEnd(20)}  ${key.scopes.join(',').padEnd(12)}  used ${(key.lastUsedAt ?? 'never').padEnd(24)}  created ${key.createdAt}  expires ${(key.expiresAt ?? 'never').padEnd(24)}  ${key.name}`,
      );
    }
  }
  return 0;
}

export async function accountCreateKey(config: Config, { values, positionals }: Invocation): Promise<number> {
  const [accountId] = positionals as [string];
  const name = values.string('name');
  // The API's limits for a key name, so the CLI and the API accept the same names.
  if (name !== undefined && (!/\S/.test(name) || Array.from(name).length > 100)) {
    throw new UsageError('--name must be 1-100 characters and not blank');
  }
  const expiresAt = parseExpires(values.string('expires'), systemClock.now());
  const created = await withAccounts(config, (accounts) => accounts.createKey(accountId, name, expiresAt));
  if (!created) throw new CommandFailed(`no account with id ${accountId}`, 2);
  const { key, secret } = created;
  if (values.boolean('json')) {
    out(JSON.stringify({ key_id: key.id, account_id: accountId, name: key.name, prefix: key.keyPrefix, expires_at: key.expiresAt, api_key: secret }));
  } else {
    const until = key.expiresAt === null ? 'it never expires' : `it expires at ${key.expiresAt}`;
    out(`Created account key ${key.id} ("${key.name}") for account ${accountId}; ${until}.\nAPI key (shown once, store it now): ${secret}`);
  }
  return 0;
}

/**
 * `folio account delete <account_id>`: the id is the confirmation, as for revoke-key. The sites'
 * removal jobs are recorded with the deletion; the running server (or its next start) runs them.
 */
export async function accountDelete(config: Config, { positionals }: Invocation): Promise<number> {
  const [accountId] = positionals as [string];
  const deleted = await withDatabase(config, ({ sql, repos }) => createAccounts({ sql, repos, clock: systemClock }).delete(accountId));
  if (!deleted) throw new CommandFailed(`no account with id ${accountId}`, 2);
  out(`Deleted account ${accountId}: its keys are refused and its blogs are gone; the running server removes their sites (or at its next start).`);
  return 0;
}

export async function accountRevokeKey(config: Config, { values, positionals }: Invocation): Promise<number> {
  const [keyId] = positionals as [string];
  const result = await withAccounts(config, (accounts) => accounts.revokeKey(keyId, { force: values.boolean('force') }));
  if (result.outcome === 'not_found') throw new CommandFailed(`no active key with id ${keyId}`, 2);
  const { key } = result;
  if (result.outcome === 'last_account_key') {
    throw new CommandFailed(
      `key ${key.id} is the last account key of account ${key.accountId}; nothing was revoked.\n` +
        `Make a new one first (folio account create-key ${key.accountId}), then revoke this one; or pass --force to revoke it anyway.`,
      1,
    );
  }
  const bound = key.blogId === null ? 'account key' : `key of blog ${key.blogId}`;
  out(`Revoked ${bound} ${key.id} (${key.keyPrefix}…) of account ${key.accountId}; it is refused from the next request on.`);
  return 0;
}
