/**
 * runWhenIdle (src/warmup/idleSteps.ts): the start-up warm-up runs its steps only while the server
 * answers nothing, in order, past a failing step, and not forever behind a request that stays open.
 * Real HTTP against a real node:http server.
 */
import { createServer, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpServer } from '../../../src/http/httpServer.js';
import { RequestActivity, runWhenIdle } from '../../../src/warmup/idleSteps.js';
import { createLogger } from '../../../src/lib/logger.js';

let server: Server | null = null;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = null;
});

/** A server whose requests stay open until `release()`; resolves once it holds one. */
async function holdingServer(): Promise<{ url: string; activity: RequestActivity; held: Promise<void>; release: () => void }> {
  const open: ServerResponse[] = [];
  let arrived!: () => void;
  const held = new Promise<void>((resolve) => (arrived = resolve));
  server = createServer((_req, res) => {
    open.push(res);
    arrived();
  });
  const activity = new RequestActivity(server);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const release = (): void => {
    for (const res of open.splice(0)) res.end('ok');
  };
  return { url: `http://127.0.0.1:${port}/`, activity, held, release };
}

const turns = async (n: number): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setTimeout(resolve, 1));
};

describe('runWhenIdle', () => {
  it('waits while a request is in flight, then runs every step in order', async () => {
    const { url, activity, held, release } = await holdingServer();
    const ran: number[] = [];
    const answered = fetch(url).then((res) => res.text());
    await held;
    const done = runWhenIdle(
      activity,
      [1, 2, 3].map((n) => () => void ran.push(n)),
      () => undefined,
      { maxWaitMs: 60_000 },
    );
    await turns(20);
    expect(ran).toEqual([]);
    release();
    expect(await answered).toBe('ok');
    await done;
    expect(ran).toEqual([1, 2, 3]);
  });

  it('runs at once on an idle server, and goes on past a step that throws', async () => {
    const { activity } = await holdingServer();
    const ran: string[] = [];
    const errors: unknown[] = [];
    await runWhenIdle(
      activity,
      [
        () => void ran.push('a'),
        () => {
          throw new Error('broken step');
        },
        () => void ran.push('c'),
      ],
      (err) => errors.push(err),
    );
    expect(ran).toEqual(['a', 'c']);
    expect(errors.map((err) => (err as Error).message)).toEqual(['broken step']);
  });

  it('waits for a pause when requests come one after another, then runs', async () => {
    server = createServer((_req, res) => res.end('ok'));
    const activity = new RequestActivity(server);
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    await (await fetch(url)).text();
    const ran: number[] = [];
    const done = runWhenIdle(activity, [() => void ran.push(1)], () => undefined, { maxWaitMs: 60_000, quietMs: 1_000 });
    // A client sending requests back to back: never a second without one.
    for (let i = 0; i < 10; i++) {
      expect(await (await fetch(url)).text()).toBe('ok');
      await turns(10);
      expect(ran).toEqual([]);
    }
    await done;
    expect(ran).toEqual([1]);
  });

  it('does not wait forever behind a request that stays open', async () => {
    const { url, activity, held, release } = await holdingServer();
    const answered = fetch(url).then((res) => res.text());
    await held;
    const ran: number[] = [];
    await runWhenIdle(activity, [() => void ran.push(1), () => void ran.push(2)], () => undefined, { maxWaitMs: 30 });
    expect(ran).toEqual([1, 2]);
    release();
    expect(await answered).toBe('ok');
  });

  it('counts a request sent with Expect: 100-continue (curl sends it with bodies over 1 MB)', async () => {
    let arrived!: () => void;
    const held = new Promise<void>((resolve) => (arrived = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    server = createHttpServer((req, res) => {
      req.resume();
      arrived();
      void released.then(() => res.end('ok'));
    }, createLogger('silent'));
    const activity = new RequestActivity(server);
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const answered = new Promise<number>((resolve, reject) => {
      const req = request({
        port,
        host: '127.0.0.1',
        method: 'POST',
        path: '/v1/posts',
        headers: { expect: '100-continue', 'content-type': 'application/json', 'content-length': '2' },
      });
      req.on('continue', () => req.end('{}'));
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
    });
    await held;
    const ran: number[] = [];
    const done = runWhenIdle(activity, [() => void ran.push(1)], () => undefined, { maxWaitMs: 60_000 });
    await turns(20);
    expect(ran).toEqual([]);
    release();
    expect(await answered).toBe(200);
    await done;
    expect(ran).toEqual([1]);
  });
});
