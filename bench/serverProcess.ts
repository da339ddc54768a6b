import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { scriptEnvOf } from './harness/scriptEnv.js';

export interface BenchServer {
  baseUrl: string;
  dataDir: string;
  pid: number;
  /** Resident memory of the server process in bytes (from /proc). */
  rss(): Promise<number>;
  /** CPU time the server process has used so far, all its threads, user and system, in seconds (from /proc). */
  cpuSeconds(): Promise<number>;
  stop(): Promise<void>;
}

const MAIN = fileURLToPath(new URL('../server/main.js', import.meta.url));
const CLI = fileURLToPath(new URL('../src/cliMain.js', import.meta.url));

/**
 * The variables an npm script sets before its `node …` command (package.json): `start` for the
 * server (the Docker image sets the same), `folio` for the CLI, so the benches run both as they ship.
 */
export function scriptEnv(script: 'start' | 'folio'): Record<string, string> {
  const pkg = JSON.parse(readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8')) as { scripts: Record<string, string> };
  return scriptEnvOf(pkg.scripts[script]!);
}

let ticks: number | null = null;

/** The kernel's clock ticks a second, the unit of /proc's CPU times. */
function clockTicks(): number {
  ticks ??= Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
  return ticks;
}

/** What `npm start` sets before `node dist/server/main.js`. */
export const startScriptEnv = (): Record<string, string> => scriptEnv('start');

/** A new enterprise account on the data dir (through the real CLI); returns its API key. */
export function createBenchAccount(dataDir: string, env: Record<string, string> = {}): string {
  const out = execFileSync(process.execPath, [CLI, 'account', 'create', '--plan', 'enterprise', '--json'], {
    env: { ...process.env, FOLIO_DATA_DIR: dataDir, ...env },
  });
  return (JSON.parse(out.toString()) as { api_key: string }).api_key;
}

/**
 * Runs the real server (dist/server/main.js) in its own process, so the load generator and the
 * server do not share one event loop; with npm start's variables (startScriptEnv) under `env`.
 */
export async function startBenchServer(
  env: Record<string, string> = {},
  port = 3900 + Math.floor(Math.random() * 500),
  nodeArgs: readonly string[] = [],
): Promise<BenchServer> {
  const dataDir = env.FOLIO_DATA_DIR ?? mkdtempSync(join(tmpdir(), 'folio-bench-'));
  const child: ChildProcess = spawn(process.execPath, ['--openssl-legacy-provider', ...nodeArgs, MAIN], {
    env: { ...process.env, ...startScriptEnv(), PORT: String(port), HOST: '127.0.0.1', FOLIO_DATA_DIR: dataDir, FOLIO_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // The server's last words, for the error when it does not come up (read continuously: a full
  // pipe would block the server's logging).
  let output = '';
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-4096);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', (chunk: Buffer) => {
    keep(chunk);
    process.stderr.write(chunk);
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  let last = '';
  for (;;) {
    try {
      const res = await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(5_000) });
      if (res.ok) break;
      last = `HTTP ${res.status}`;
    } catch (err) {
      // not listening yet
      last = String((err as { cause?: { code?: string } }).cause?.code ?? err);
    }
    if (child.exitCode !== null) throw new Error(`bench server exited with ${child.exitCode}: ${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`bench server did not answer /healthz on port ${port} within 120 s (last: ${last}); its output ends: ${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    baseUrl,
    dataDir,
    pid: child.pid!,
    rss: async () => {
      const { readFile } = await import('node:fs/promises');
      const status = await readFile(`/proc/${child.pid}/status`, 'utf8');
      const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      return kb * 1024;
    },
    cpuSeconds: async () => {
      const { readFile } = await import('node:fs/promises');
      // The fields after the command name, which may hold spaces: utime and stime are the 12th and 13th.
      const stat = await readFile(`/proc/${child.pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[11]) + Number(fields[12])) / clockTicks();
    },
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
