/**
 * Every call of the S3 store has a deadline (S3SiteStore.timed): a server that accepts the
 * connection and never answers fails the call with StoreTimeoutError, which opens the store
 * circuit and becomes a 503 with Retry-After. A loopback TCP server that reads and never writes
 * stands in for a hung S3 endpoint.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreTimeoutError } from '../../../src/domain/errors.js';
import { S3SiteStore } from '../../../src/storage/s3SiteStore.js';
import { createTestS3Client } from '../../../bench/harness/s3rver.js';

describe('S3SiteStore against a server that never answers', () => {
  let server: Server;
  const sockets = new Set<Socket>();
  let store: S3SiteStore;

  beforeAll(async () => {
    server = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.resume();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    // One attempt: the deadline covers the SDK's retries anyway, and the test stays short.
    const client = await createTestS3Client(`http://127.0.0.1:${port}`, { maxAttempts: 1 });
    store = new S3SiteStore({ client, bucket: 'hung', deadlineMs: 300 });
  });

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const calls: [string, () => Promise<unknown>][] = [
    ['get', () => store.get('blog/index.html')],
    ['getRange', () => store.getRange('blog/index.html', 0, 10)],
    ['getBody', () => store.getBody('blog/index.html')],
    ['size', () => store.size('backups/folio.db.gz')],
    ['put', () => store.put('blog/index.html', '<p>hi</p>', { contentType: 'text/html', cacheControl: 'no-cache' })],
    ['delete', () => store.delete('blog/index.html')],
    ['deleteMany', () => store.deleteMany(['blog/a.html', 'blog/b.html'])],
    ['list', () => store.list('blog/')],
  ];

  it.each(calls)('%s fails with StoreTimeoutError at its deadline', async (_name, call) => {
    const error = await call().then(
      () => null,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(StoreTimeoutError);
    expect((error as StoreTimeoutError).message).toMatch(/got no answer within/);
  });
});
