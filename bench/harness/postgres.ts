/**
 * A real PostgreSQL for the tests and benches (issue #32): Debian's server binaries, a cluster made by
 * initdb in a temporary directory, listening on a loopback port only, run as an unprivileged
 * user (PostgreSQL refuses to run as root: when the tests are root, the server runs as
 * `nobody`). Stopped by its pid and removed afterwards. Durability settings are off: the
 * cluster lives as long as one test file.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, chownSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';

const NOBODY = 65534;

export interface Postgres {
  /** `postgres://user@host:port`: a database's URL is this, `/`, its name. */
  base: string;
  /** postgres://… of a new, empty database on the cluster. */
  createDatabase(): Promise<string>;
  /** Stops the server (fast shutdown: clients are disconnected); `start` brings it back on the same port and data. */
  pause(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** The newest installed server's bin directory (Debian: /usr/lib/postgresql/<major>/bin), or null. */
export function postgresBinDir(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const majors = readdirSync(root)
    .filter((name) => /^\d+$/.test(name) && existsSync(join(root, name, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a));
  return majors.length > 0 ? join(root, majors[0]!, 'bin') : null;
}

export async function startPostgres(): Promise<Postgres> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('PostgreSQL is not installed (Debian: apt-get install postgresql); .ci/run installs it');
  const dir = mkdtempSync(join(tmpdir(), 'folio-pg-'));
  const asUser = process.getuid?.() === 0 ? { uid: NOBODY, gid: NOBODY } : {};
  if ('uid' in asUser) chownSync(dir, NOBODY, NOBODY);
  const data = join(dir, 'data');
  await run(join(bin, 'initdb'), ['-D', data, '-U', 'folio', '-A', 'trust', '-E', 'UTF8', '--no-locale', '--no-sync'], asUser);
  const port = await freePort();
  const base = `postgres://folio@127.0.0.1:${port}`;
  const settings = ['listen_addresses=127.0.0.1', `unix_socket_directories=${dir}`, 'fsync=off', 'synchronous_commit=off', 'full_page_writes=off'];
  let server: ChildProcess | null = null;
  const launch = async (): Promise<void> => {
    const launched = spawn(join(bin, 'postgres'), ['-D', data, '-p', String(port), ...settings.flatMap((setting) => ['-c', setting])], {
      ...asUser,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    server = launched;
    let log = '';
    launched.stderr?.on('data', (chunk: Buffer) => {
      log = (log + chunk.toString()).slice(-4000);
    });
    await waitForConnections(`${base}/postgres`, launched, () => log);
  };
  try {
    await launch();
  } catch (err) {
    if (server) await stopServer(server);
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    base,
    createDatabase: () => createPostgresDatabase(base),
    async pause() {
      if (server) await stopServer(server);
      server = null;
    },
    start: launch,
    async stop() {
      if (server) await stopServer(server);
      server = null;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

let created = 0;

/** A new, empty database on the cluster whose base URL (`postgres://user@host:port`) is given. */
export async function createPostgresDatabase(base: string): Promise<string> {
  const name = `folio_${process.pid}_${++created}`;
  const admin = new pg.Client({ connectionString: `${base}/postgres` });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return `${base}/${name}`;
}

function run(command: string, args: string[], options: { uid?: number; gid?: number }): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${command} exited with ${code}: ${err.slice(-2000)}`))));
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function waitForConnections(url: string, server: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`postgres exited with ${server.exitCode}: ${log()}`);
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      return;
    } catch (err) {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline) throw new Error(`postgres did not accept connections in 30 s: ${String(err)}\n${log()}`);
      await sleep(50);
    }
  }
}

/** Fast shutdown (SIGINT): open connections are ended, nothing waits for clients to leave. */
async function stopServer(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  server.kill('SIGINT');
  await Promise.race([exited, sleep(10_000).then(() => server.kill('SIGKILL'))]);
  await exited;
}
