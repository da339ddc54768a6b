import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
// Types only: globalSetup imports this file, and vitest's module runner needs seconds to load
// the SDK in the main process (0.3 s natively). The helpers below load it in the test workers.
import type { S3Client, S3ClientConfig } from '@aws-sdk/client-s3';

export interface S3rverHandle {
  /** `http://127.0.0.1:<port>`, for an S3Client with `forcePathStyle: true`. */
  endpoint: string;
  pid: number;
  stop(): Promise<void>;
}

export interface StartS3rverOptions {
  /** Buckets s3rver creates at startup, before the handle is returned. */
  buckets?: string[];
  /**
   * Restart on a known port and data folder (store outage tests): the folder is then the
   * caller's and survives stop(). Default: a port the OS picks and a fresh folder removed on stop.
   */
  port?: number;
  directory?: string;
  /** How long to wait for the server to report its address. */
  startTimeoutMs?: number;
}

/** s3rver's own defaults; it accepts any well-formed signature made with them. */
const TEST_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

const LISTENING = /S3rver listening on (\S+):(\d+)/;

/*
 * How s3rver 3.7.1 differs from S3 where Folio's tests can notice (checked against its source):
 * - ListObjectsV2 returns keys in the order it walks its folders (`x/a/index.html` before
 *   `x/a-b/index.html` and `x/a.html`), and a continuation resumes after the previous page's
 *   last key by string comparison, so keys walked later but sorting earlier are skipped. Tests
 *   that page past 1000 keys use flat fixed-width names, whose walk order is key order.
 * - It checks neither Content-MD5 nor x-amz-checksum-* headers, and it ignores Quiet in
 *   DeleteObjects (it lists every key as Deleted, missing ones included, as S3 does).
 * - WebsiteRedirectLocation round-trips, so no user-metadata copy of it is needed.
 */

function s3rverBin(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('s3rver/package.json')), 'bin', 's3rver.js');
}

/**
 * Starts s3rver as a child process on loopback, on a port the OS picks, with a fresh data
 * directory. s3rver encrypts ListObjectsV2 continuation tokens with DES, which OpenSSL 3 only
 * offers with `--openssl-legacy-provider`; a child process keeps that flag out of the runner.
 */
export async function startS3rver(options: StartS3rverOptions = {}): Promise<S3rverHandle> {
  const ownDirectory = options.directory === undefined;
  const directory = options.directory ?? (await mkdtemp(join(tmpdir(), 'folio-s3rver-')));
  const args = ['--address', '127.0.0.1', '--port', String(options.port ?? 0), '--directory', directory, '--silent'];
  for (const bucket of options.buckets ?? []) args.push('--configure-bucket', bucket);
  const child = spawn(process.execPath, ['--openssl-legacy-provider', s3rverBin(), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // If the runner dies without calling stop (Ctrl-C, crash), do not leave s3rver running.
  const killOnExit = (): void => {
    if (child.pid !== undefined && child.exitCode === null) child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);
  const stop = async (): Promise<void> => {
    process.off('exit', killOnExit);
    await killChild(child);
    if (ownDirectory) await rm(directory, { recursive: true, force: true });
  };

  try {
    // Port 0 avoids the race of probing for a free port first; s3rver prints the port it got
    // only after the server is listening, so the line doubles as the readiness signal.
    const port = await waitForListening(child, options.startTimeoutMs ?? 10_000);
    await assertAcceptsConnections(port);
    return { endpoint: `http://127.0.0.1:${port}`, pid: child.pid ?? -1, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

function waitForListening(child: ChildProcess, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      const match = LISTENING.exec(output);
      if (!match) return;
      cleanup();
      resolve(Number(match[2]));
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null): void => {
      cleanup();
      reject(new Error(`s3rver exited before listening (code ${code}, signal ${signal}):\n${output}`));
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(error);
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`s3rver did not start within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    function cleanup(): void {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
      child.off('error', onError);
      // Keep draining the pipes: a child blocked on a full stdout pipe stops answering.
      child.stdout?.resume();
      child.stderr?.resume();
    }
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
    child.once('error', onError);
  });
}

function assertAcceptsConnections(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.end();
      resolve();
    });
    socket.once('error', reject);
  });
}

async function killChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.kill(child.pid, 'SIGTERM');
  const timer = setTimeout(() => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
  }, 3_000);
  await exited;
  clearTimeout(timer);
}

/**
 * A client configured like production (`s3ClientConfig`), plus s3rver's credentials, which
 * production leaves to the SDK's default chain.
 */
export async function createTestS3Client(endpoint: string, overrides: Partial<S3ClientConfig> = {}): Promise<S3Client> {
  const [{ S3Client }, { s3ClientConfig }] = await Promise.all([import('@aws-sdk/client-s3'), import('../../src/storage/s3SiteStore.js')]);
  return new S3Client({
    ...s3ClientConfig({ endpoint, region: 'us-east-1', forcePathStyle: true }),
    credentials: TEST_CREDENTIALS,
    ...overrides,
  });
}

/** A client and a bucket no other test uses, so test files can share one server in parallel. */
export async function createTestBucket(endpoint: string): Promise<{ client: S3Client; bucket: string }> {
  const { CreateBucketCommand } = await import('@aws-sdk/client-s3');
  const client = await createTestS3Client(endpoint);
  const bucket = `folio-test-${randomUUID()}`;
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  return { client, bucket };
}
