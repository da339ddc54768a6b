import { vi } from 'vitest';
import { runCli, type CliOptions } from '../../src/cli/runCli.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the real `folio` command in this process with only `env` as its environment, capturing
 * what it writes to stdout and stderr (the process streams are restored afterwards).
 */
export async function runCliCaptured(args: string[], env: Record<string, string>, options: Omit<CliOptions, 'env'> = {}): Promise<CliRun> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const capture =
    (into: string[]) =>
    (chunk: string | Uint8Array): boolean => {
      into.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      return true;
    };
  const out = vi.spyOn(process.stdout, 'write').mockImplementation(capture(stdout) as typeof process.stdout.write);
  const err = vi.spyOn(process.stderr, 'write').mockImplementation(capture(stderr) as typeof process.stderr.write);
  try {
    // Social cards off unless the test says otherwise, as for the servers of testApp.ts, so that
    // the CLI renders the pages those servers render.
    const code = await runCli(args, { ...options, env: { FOLIO_SOCIAL_CARDS: 'off', ...env } });
    return { code, stdout: stdout.join(''), stderr: stderr.join('') };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}
