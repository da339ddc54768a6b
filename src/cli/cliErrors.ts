/** The CLI's expected failures (runCli.ts prints each as one line on stderr). */

/** The command line itself is wrong: printed with the usage text (the command's, when known). */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly usage: string | null = null,
  ) {
    super(message);
  }
}

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
