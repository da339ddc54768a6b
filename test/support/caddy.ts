import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../../src/lib/paths.js';
import { freePort } from '../../bench/harness/ports.js';

export const CADDY = '/usr/bin/caddy';
export const SHIPPED_CADDYFILE = join(packageRoot, 'deploy', 'caddy', 'Caddyfile');
/** The load balancer of deploy/several-nodes/compose.yaml. */
export const BALANCER_CADDYFILE = join(packageRoot, 'deploy', 'several-nodes', 'Caddyfile');

export interface CaddyHandle {
  httpsPort: number;
  httpPort: number;
  /** The root certificate of Caddy's internal CA (PEM), to trust in clients. */
  rootCertificate(): string;
  /** Resolves once Caddy stored a certificate for `subject` (`*.blogs.test`), issued at start. */
  waitForCertificate(subject: string, timeoutMs: number): Promise<void>;
  /** Caddy's log so far (for failure messages). */
  output(): string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * The shipped deploy/caddy/Caddyfile as a test runs it: every certificate from Caddy's internal
 * CA instead of an ACME CA (no network, no DNS plugin: the wildcard's EDIT line becomes `tls
 * internal`), loopback and high ports, no admin endpoint and nothing installed in the system's
 * trust store. The on-demand `ask` and everything else is the shipped file. Each replaced text
 * must be found exactly once.
 */
export function shippedCaddyfileForTest(ports: { http: number; https: number }): string {
  let text = readFileSync(SHIPPED_CADDYFILE, 'utf8');
  const replace = (from: string, to: string): void => {
    const count = text.split(from).length - 1;
    if (count !== 1) throw new Error(`deploy/caddy/Caddyfile: expected ${JSON.stringify(from)} once, found ${count}`);
    text = text.replace(from, to);
  };
  replace('\n{\n', `\n{\n\tlocal_certs\n\tskip_install_trust\n\tadmin off\n\tdefault_bind 127.0.0.1\n\thttp_port ${ports.http}\n\thttps_port ${ports.https}\n`);
  replace('\temail admin@example.com\n', '');
  replace('\ttls {\n\t\t# EDIT: your DNS provider.\n\t\tdns cloudflare {env.CLOUDFLARE_API_TOKEN}\n\t}\n', '\ttls internal\n');
  return text;
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Starts Debian's caddy (`caddy run`) as a child with its own XDG folders (data: the internal
 * CA and certificates; config: autosave) under a temp dir, and `env` (the Caddyfile's
 * FOLIO_* settings). Waits until both ports accept connections; stopped by pid.
 */
export async function startCaddy(options: { env: Record<string, string> }): Promise<CaddyHandle> {
  const [httpPort, httpsPort] = [await freePort(), await freePort()];
  return runCaddy(shippedCaddyfileForTest({ http: httpPort, https: httpsPort }), { httpPort, httpsPort, tls: true, env: options.env });
}

/**
 * Starts the shipped balancer (deploy/several-nodes/Caddyfile) as it is, in front of `nodes`
 * (`host:port` each), on a loopback port: its `httpPort`.
 */
export async function startBalancer(nodes: readonly string[]): Promise<CaddyHandle> {
  const httpPort = await freePort();
  return runCaddy(readFileSync(BALANCER_CADDYFILE, 'utf8'), {
    httpPort,
    httpsPort: 0,
    tls: false,
    env: { FOLIO_NODES: nodes.join(' '), FOLIO_BALANCER_ADDRESS: `127.0.0.1:${httpPort}` },
  });
}

async function runCaddy(text: string, options: { httpPort: number; httpsPort: number; tls: boolean; env: Record<string, string> }): Promise<CaddyHandle> {
  if (!existsSync(CADDY)) throw new Error(`${CADDY} not found: install Debian's caddy package (.ci/run does)`);
  const { httpPort, httpsPort } = options;
  const dir = await mkdtemp(join(tmpdir(), 'folio-caddy-'));
  for (const sub of ['data', 'config', 'home']) await mkdir(join(dir, sub));
  const caddyfile = join(dir, 'Caddyfile');
  await writeFile(caddyfile, text);
  const child: ChildProcess = spawn(CADDY, ['run', '--config', caddyfile, '--adapter', 'caddyfile'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '', HOME: join(dir, 'home'), XDG_DATA_HOME: join(dir, 'data'), XDG_CONFIG_HOME: join(dir, 'config'), ...options.env },
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const rootFile = join(dir, 'data', 'caddy', 'pki', 'authorities', 'local', 'root.crt');

  const deadline = Date.now() + 30_000;
  const ready = async () => (options.tls ? (await listening(httpsPort)) && (await listening(httpPort)) && existsSync(rootFile) : await listening(httpPort));
  while (!(await ready())) {
    if (child.exitCode !== null) throw new Error(`caddy exited (${child.exitCode}):\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`caddy did not listen on ${httpPort}/${httpsPort}:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    httpsPort,
    httpPort,
    rootCertificate: () => readFileSync(rootFile, 'utf8'),
    waitForCertificate: async (subject, timeoutMs) => {
      const name = subject.replace(/^\*/, 'wildcard_');
      const file = join(dir, 'data', 'caddy', 'certificates', 'local', name, `${name}.crt`);
      const until = Date.now() + timeoutMs;
      while (!existsSync(file)) {
        if (Date.now() > until) throw new Error(`caddy stored no certificate for ${subject}:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    output: () => output,
    pid: child.pid!,
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
