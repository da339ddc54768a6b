import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.js';
import { packageRoot } from '../../src/lib/paths.js';

export const VARNISHD = '/usr/sbin/varnishd';
export const SHIPPED_VCL = join(packageRoot, 'deploy', 'varnish', 'folio.vcl');

export interface VarnishHandle {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  pid: number;
  /** varnishd's working directory (`-n`), for varnishstat and varnishlog. */
  workdir: string;
  stop(): Promise<void>;
}

/** A port the OS says is free now (varnishd must be told its port before it starts). */
export interface EdgeBackends {
  bucket: { host: string; port: number };
  folio: { host: string; port: number };
}

/**
 * The shipped VCL with its backends pointed at loopback servers: the only lines an operator
 * edits for their own hosts (README "CDN: Varnish"). Each must be found exactly once, so a VCL
 * that drifts from the documented lines fails the tests instead of testing something else.
 */
export function shippedVclFor(backends: EdgeBackends): string {
  let vcl = readFileSync(SHIPPED_VCL, 'utf8');
  const replace = (from: string, to: string): void => {
    const count = vcl.split(from).length - 1;
    if (count !== 1) throw new Error(`deploy/varnish/folio.vcl: expected ${JSON.stringify(from)} once, found ${count}`);
    vcl = vcl.replace(from, to);
  };
  replace('.host = "minio";\n    .port = "9000";', `.host = "${backends.bucket.host}";\n    .port = "${backends.bucket.port}";`);
  replace('.host = "folio";\n    .port = "3000";', `.host = "${backends.folio.host}";\n    .port = "${backends.folio.port}";`);
  return vcl;
}

/**
 * Starts a real varnishd in the foreground (-F) with this VCL on a loopback port, its working
 * directory in a temp folder, and waits until it answers. Stopped by pid.
 */
export async function startVarnish(options: { vcl: string; port?: number; storageMb?: number; env?: Record<string, string> }): Promise<VarnishHandle> {
  if (!existsSync(VARNISHD)) throw new Error(`${VARNISHD} not found: install Debian's varnish package (.ci/run does)`);
  const port = options.port ?? (await freePort());
  const dir = await mkdtemp(join(tmpdir(), 'folio-varnish-'));
  const vclFile = join(dir, 'folio.vcl');
  await writeFile(vclFile, options.vcl);
  const child: ChildProcess = spawn(
    VARNISHD,
    [
      '-F',
      '-j',
      'none',
      '-n',
      join(dir, 'work'),
      '-a',
      `127.0.0.1:${port}`,
      '-T',
      'none',
      '-f',
      vclFile,
      '-s',
      `malloc,${options.storageMb ?? 64}m`,
      // Bans are tested by the next request; the lurker's pace does not matter for that.
      '-p',
      'ban_lurker_sleep=0.1',
      '-p',
      'thread_pool_min=10',
    ],
    // The shipped VCL reads FOLIO_SERVICE_DOMAIN from varnishd's environment (std.getenv).
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...options.env } },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;

  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`varnishd exited (${child.exitCode}):\n${output}`);
    try {
      const res = await fetch(`${url}/`, { method: 'HEAD', headers: { host: 'varnish-probe.invalid' }, signal: AbortSignal.timeout(1000) });
      await res.arrayBuffer();
      break;
    } catch {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`varnishd did not answer on ${url}:\n${output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  return {
    url,
    port,
    pid: child.pid!,
    workdir: join(dir, 'work'),
    stop: async () => {
      if (child.exitCode === null) {
        process.kill(child.pid!, 'SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
