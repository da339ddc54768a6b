/**
 * One command line parsed against its row of the command table (commandTable.ts) with node's
 * util.parseArgs in strict mode: an option the command does not have is an error, never an
 * argument, and `--help` answers before anything acts.
 */
import { parseArgs } from 'node:util';
import { commandHelp, commandName, HELP_FLAGS, parseOptions, type CommandSpec } from './commandTable.js';
import { CommandFailed, UsageError } from './cliErrors.js';

/** The options a command was given, read by name and type. */
export class OptionValues {
  constructor(private readonly raw: Readonly<Record<string, string | boolean | undefined>>) {}

  string(name: string): string | undefined {
    const value = this.raw[name];
    return typeof value === 'string' ? value : undefined;
  }

  boolean(name: string): boolean {
    return this.raw[name] === true;
  }
}

export interface Invocation {
  readonly values: OptionValues;
  readonly positionals: readonly string[];
}

/** Whether `--help` or `-h` comes before a `--` (after which everything is an argument). */
export function asksForHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((arg) => HELP_FLAGS.includes(arg));
}

/** `args` (what follows the command's words) checked against the command's options and arguments. */
export function parseInvocation(spec: CommandSpec, args: string[]): Invocation {
  const name = `folio ${commandName(spec)}`;
  let parsed;
  try {
    parsed = parseArgs({ args, options: parseOptions(spec), allowPositionals: true, strict: true });
  } catch (err) {
    if (!(err instanceof TypeError && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS'))) throw err;
    const flag = /'(-[^' ]*)/.exec(err.message)?.[1];
    const problem = err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && flag ? `unknown option ${flag} for ${name}` : err.message.split('. ')[0]!;
    throw new CommandFailed(`${problem}; see ${name} --help`, 2);
  }
  const { positionals } = parsed;
  const { min, max } = spec.positionals;
  if (positionals.length < min || positionals.length > max) {
    const expected = min === max ? (min === 0 ? 'no arguments' : `${min} argument${min === 1 ? '' : 's'}`) : `${min} to ${max} arguments`;
    throw new UsageError(`${commandName(spec)} takes ${expected}, got ${positionals.length}`, commandHelp(spec));
  }
  // No option is declared `multiple`, so every value is a string or a boolean.
  return { values: new OptionValues(parsed.values as Record<string, string | boolean | undefined>), positionals };
}
