/** `folio account login-link` and `folio account set-password`: people's sign-in to the dashboard (docs/dashboard.md). */
import type { Config } from '../config/config.js';
import { createLoginLinks, createPasswords } from '../compose/services.js';
import { withDatabase } from './cliDatabase.js';
import { systemClock } from '../lib/clock.js';
import { CommandFailed } from './cliErrors.js';
import type { Invocation } from './invocation.js';

const out = (line: string): void => void process.stdout.write(`${line}\n`);

/** `folio account login-link <account_id>`: a one-time link, valid 15 minutes, printed once. */
export async function accountLoginLink(config: Config, { values, positionals }: Invocation): Promise<number> {
  const [accountId] = positionals as [string];
  const link = await withDatabase(config, ({ repos }) => createLoginLinks({ config, repos, clock: systemClock }).create(accountId));
  if (!link) throw new CommandFailed(`no account with id ${accountId}`, 2);
  if (values.boolean('json')) out(JSON.stringify({ account_id: accountId, url: link.url, expires_at: link.expiresAt }));
  else out(`Sign-in link for account ${accountId} (works once, until ${link.expiresAt}):\n${link.url}`);
  return 0;
}

/**
 * `folio account set-password <account_id> [--email E]`: the password is read from stdin (a
 * pipe) or typed at a prompt that does not echo, never from argv, which lands in shell history
 * and in `ps`. Every session of the account ends.
 */
export async function accountSetPassword(config: Config, { values, positionals }: Invocation): Promise<number> {
  const [accountId] = positionals as [string];
  const password = process.stdin.isTTY ? await promptHidden('New password: ') : await firstLineOfStdin();
  const change = await withDatabase(config, ({ repos }) =>
    createPasswords({ repos, clock: systemClock }).set(accountId, password, values.string('email') ?? null),
  );
  if (!change) throw new CommandFailed(`no account with id ${accountId}`, 2);
  const ended = change.endedSessions;
  out(`Password set for account ${accountId}; ${ended === 0 ? 'it had no sessions' : `${ended} session${ended === 1 ? '' : 's'} ended`}.`);
  return 0;
}

async function firstLineOfStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    size += chunk.length;
    if (size > 64 * 1024) break;
  }
  return (Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '').slice(0, 4096);
}

/** Reads a line from the terminal without echoing it. */
function promptHidden(question: string): Promise<string> {
  const stdin = process.stdin;
  process.stderr.write(question);
  stdin.setRawMode(true);
  stdin.resume();
  stdin.setEncoding('utf8');
  let typed = '';
  return new Promise((resolve, reject) => {
    const done = (err?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      process.stderr.write('\n');
      if (err) reject(err);
      else resolve(typed);
    };
    const onData = (text: string) => {
      for (const char of text) {
        if (char === '\r' || char === '\n') return done();
        if (char === '\u0003') return done(new CommandFailed('cancelled', 130));
        if (char === '\u007f' || char === '\b') typed = [...typed].slice(0, -1).join('');
        else typed += char;
      }
    };
    stdin.on('data', onData);
  });
}
