import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../bench/harness/ports.js';

/** The bundled server, as `npm start` runs it (`npm test` builds it first: tsc, then scripts/bundleServer.mjs). */
export const MAIN_JS = fileURLToPath(new URL('../../dist/server/main.js', import.meta.url));
/** The same server as tsc emits it, unbundled (what the bundle is made from). */
export const UNBUNDLED_MAIN_JS = fileURLToPath(new URL('../../dist/src/main.js', import.meta.url));

/** The `folio` command (bin/folio.js), as an operator runs it. */
export const FOLIO_BIN = fileURLToPath(new URL('../../bin/folio.js', import.meta.url));

export interface ProcessRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A process of this package (`node <args>`: the server, or FOLIO_BIN and a command) run to its end, its output kept. */
export function runToEnd(args: readonly string[], env: Record<string, string>): Promise<ProcessRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_NO_WARNINGS: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export interface OutputLine {
  /** performance.now() of this process when the line arrived on the child's stdout. */
  at: number;
  text: string;
  /** The parsed JSON log line, or null for other output (the first-start banner). */
  json: Record<string, unknown> | null;
}

export interface SpawnedServer {
  baseUrl: string;
  port: number;
  dataDir: string;
  /**
   * What a `folio` command or a restart needs to work on this server's data: FOLIO_DATA_DIR, and
   * the server's FOLIO_DATABASE_URL when it runs on PostgreSQL.
   */
  cliEnv: Record<string, string>;
  child: ChildProcess;
  /** The first-start banner's API key. */
  apiKey: string;
  /** Every stdout line so far, in arrival order. */
  lines: OutputLine[];
  /** Resolves with the first line (already seen or to come) that matches, or rejects after timeoutMs. */
  waitForLine(match: (line: OutputLine) => boolean, timeoutMs: number): Promise<OutputLine>;
  /** Resolves when the process has exited (stdout fully read). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
  /** Kills the process if it still runs and removes its data dir. */
  cleanup(): Promise<void>;
}

/** Whether a new TCP connection to the port is refused (a keep-alive pool would reuse old ones). */
export function connectionRefused(port: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNREFUSED' ? resolve(true) : reject(err)));
  });
}

/**
 * Runs `node dist/server/main.js` in its own process on a fresh data dir and a free port, and
 * returns once it answers /healthz. Its stdout is read line by line as it arrives. `main` runs
 * another entry instead (UNBUNDLED_MAIN_JS).
 */
export async function spawnServer(env: Record<string, string> = {}, main = MAIN_JS): Promise<SpawnedServer> {
  if (!existsSync(main)) throw new Error(`${main} is missing: run \`npm run build\` (npm test does) before these tests`);
  // A data dir given in `env` is one an earlier server used (a restart): no first-start banner then.
  const reused = env.FOLIO_DATA_DIR !== undefined;
  const dataDir = env.FOLIO_DATA_DIR ?? mkdtempSync(join(tmpdir(), 'folio-spawned-'));
  const port = await freePort();
  const child = spawn(process.execPath, [main], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      FOLIO_DATA_DIR: dataDir,
      FOLIO_LOG_LEVEL: 'info',
      // As in testApp: a card is a worker's font parsing and a drawing per publish, seconds of a
      // suite; a test about cards turns them on, and a CLI run beside it must say the same.
      FOLIO_SOCIAL_CARDS: 'off',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: OutputLine[] = [];
  const waiters = new Set<{ match: (line: OutputLine) => boolean; resolve: (line: OutputLine) => void }>();
  let partial = '';
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  child.stdout!.on('data', (chunk: Buffer) => {
    const at = performance.now();
    const parts = (partial + chunk.toString('utf8')).split('\n');
    partial = parts.pop() ?? '';
    for (const text of parts) {
      let json: Record<string, unknown> | null = null;
      try {
        const parsed: unknown = JSON.parse(text);
        if (parsed !== null && typeof parsed === 'object') json = parsed as Record<string, unknown>;
      } catch {
        // the banner
      }
      const line = { at, text, json };
      lines.push(line);
      for (const waiter of waiters) {
        if (waiter.match(line)) {
          waiters.delete(waiter);
          waiter.resolve(line);
        }
      }
    }
  });
  const stdoutDone = new Promise<void>((resolve) => child.stdout!.once('end', resolve));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.once('exit', (code, signal) => {
      const at = performance.now();
      void stdoutDone.then(() => resolve({ code, signal, at }));
    }),
  );

  const waitForLine = (match: (line: OutputLine) => boolean, timeoutMs: number): Promise<OutputLine> => {
    const seen = lines.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const waiter = {
        match,
        resolve: (line: OutputLine) => {
          clearTimeout(timer);
          resolve(line);
        },
      };
      const timer = setTimeout(() => {
        waiters.delete(waiter);
        reject(new Error(`no matching stdout line within ${timeoutMs} ms; got:\n${lines.map((l) => l.text).join('\n')}\nstderr:\n${stderr}`));
      }, timeoutMs);
      waiters.add(waiter);
    });
  };

  const cleanup = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  };

  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = performance.now() + 60_000;
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}: ${stderr}`);
      const ok = await fetch(`${baseUrl}/healthz`).then(
        (res) => res.ok,
        () => false,
      );
      if (ok) break;
      if (performance.now() > deadline) throw new Error(`server did not answer /healthz within 60 s: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } catch (err) {
    await cleanup();
    throw err;
  }
  let banner: OutputLine | null = null;
  try {
    banner = reused ? null : await waitForLine((line) => line.text.includes('API key: '), 5_000);
  } catch (err) {
    await cleanup();
    throw err;
  }
  const apiKey = banner ? /API key: (\S+)/.exec(banner.text)![1]! : '';
  const cliEnv = { FOLIO_DATA_DIR: dataDir, ...(env.FOLIO_DATABASE_URL ? { FOLIO_DATABASE_URL: env.FOLIO_DATABASE_URL } : {}) };
  return { baseUrl, port, dataDir, cliEnv, child, apiKey, lines, waitForLine, exited, cleanup };
}
