/**
 * `folio` command line: argument parsing only; the work is done by the same services the API
 * uses, on the same FOLIO_DATA_DIR (SQLite in WAL mode, so a running server is fine).
 */
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from './config.js';
import { openDatabase } from './db/database.js';
import { databaseFile } from './compose.js';
import { AccountsRepo } from './db/accountsRepo.js';
import { ApiKeysRepo } from './db/apiKeysRepo.js';
import { AccountsService } from './services/accounts.js';
import { isPlan, PLANS } from './services/plans.js';
import { systemClock } from './clock.js';

const USAGE = `Usage:
  folio account create [--email E] [--plan P] [--json]   create an account and print its key
  folio account list [--json]                           list accounts
  folio account set-plan <account_id> <plan>            change an account's plan
Plans: ${PLANS.join(', ')}`;

class UsageError extends Error {}

function accountsService(config: Config): AccountsService {
  const db = openDatabase(databaseFile(config));
  return new AccountsService(db, new AccountsRepo(db), new ApiKeysRepo(db), systemClock);
}

function accountCommand(config: Config, args: string[]): void {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'create': {
      const { values } = parseArgs({ args: rest, options: { email: { type: 'string' }, plan: { type: 'string' }, json: { type: 'boolean' } }, strict: true });
      const plan = values.plan ?? 'free';
      if (!isPlan(plan)) throw new UsageError(`unknown plan "${plan}"; expected one of ${PLANS.join(', ')}`);
      const { account, apiKey } = accountsService(config).create({ plan, ...(values.email ? { email: values.email } : {}) });
      if (values.json) {
        process.stdout.write(`${JSON.stringify({ account_id: account.id, plan: account.plan, api_key: apiKey })}\n`);
      } else {
        process.stdout.write(`Created account ${account.id} on the ${account.plan} plan.\nAPI key (shown once, store it now): ${apiKey}\n`);
      }
      return;
    }
    case 'list': {
      const { values } = parseArgs({ args: rest, options: { json: { type: 'boolean' } }, strict: true });
      const accounts = accountsService(config).list();
      if (values.json) {
        process.stdout.write(`${JSON.stringify(accounts.map((a) => ({ account_id: a.id, email: a.email, plan: a.plan, created_at: a.createdAt })))}\n`);
      } else if (accounts.length === 0) {
        process.stdout.write('No accounts.\n');
      } else {
        for (const a of accounts) process.stdout.write(`${a.id}  ${a.plan.padEnd(10)}  ${a.createdAt}  ${a.email ?? ''}\n`);
      }
      return;
    }
    case 'set-plan': {
      const { positionals } = parseArgs({ args: rest, allowPositionals: true, strict: true });
      const [accountId, plan] = positionals;
      if (!accountId || !plan || positionals.length !== 2) throw new UsageError('set-plan takes <account_id> <plan>');
      if (!isPlan(plan)) throw new UsageError(`unknown plan "${plan}"; expected one of ${PLANS.join(', ')}`);
      if (!accountsService(config).setPlan(accountId, plan)) throw new UsageError(`no account with id ${accountId}`);
      process.stdout.write(`Account ${accountId} is now on the ${plan} plan.\n`);
      return;
    }
    default:
      throw new UsageError(sub ? `unknown command "account ${sub}"` : 'missing account command');
  }
}

export async function runCli(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    const config = loadConfig();
    switch (command) {
      case 'account':
        accountCommand(config, rest);
        return 0;
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        process.stdout.write(`${USAGE}\n`);
        return command === undefined ? 1 : 0;
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (err) {
    if (err instanceof UsageError || err instanceof ConfigError || (err instanceof TypeError && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS'))) {
      process.stderr.write(`folio: ${err.message}\n${err instanceof UsageError ? `${USAGE}\n` : ''}`);
      return 2;
    }
    throw err;
  }
}

process.exitCode = await runCli(process.argv.slice(2));
