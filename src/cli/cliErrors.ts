/** The CLI's expected failures (runCli.ts prints each as one line on stderr). */

/** The command line itself is wrong: printed with the usage text. */
export class UsageError extends Error {}

/** An expected failure that the message explains fully: printed without the usage text. */
export class CommandError extends Error {}

/** A command that could not do its work: one line (or two) on stderr, no usage text. */
export class CommandFailed extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}
