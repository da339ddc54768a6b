/**
 * Runs start-up work (warmup/startupWarmUp.ts: loading ajv and compiling the schemas, the
 * Markdown pipeline, the JSON body parser, prom-client, starting the worker threads) one step
 * per turn of the event loop, and only while the server has no request in flight and has had
 * none for `quietMs`: each step holds the loop, and run back to back they would make the first
 * requests after a restart wait for them. The quiet period is for clients that send requests one
 * after another (a script creating a draft, then publishing it), so that no step starts in the
 * moment between two of them. A request that stays open (a slow upload, a stream), or a client
 * that never pauses, postpones the rest by at most `maxWaitMs`; whatever a request needs before
 * its step ran, it loads itself on first use.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { setImmediate as nextTurn } from 'node:timers/promises';

export interface IdleStepsOptions {
  /** Longest a step waits for the server to be idle (default 2 s). */
  maxWaitMs?: number;
  /** How long the server must have been without requests before a step runs (default 30 ms). */
  quietMs?: number;
}

const MAX_WAIT_MS = 2_000;
const QUIET_MS = 30;

/** Counts the server's requests in flight; attach it before the server listens. */
export class RequestActivity {
  private inFlight = 0;
  /** When a request last started or ended (performance.now()); -Infinity before the first. */
  private lastSeen = Number.NEGATIVE_INFINITY;
  /** Requests started and ended so far. */
  private seen = 0;
  private readonly waiters = new Set<() => void>();

  constructor(server: Server) {
    server.on('request', (_req: IncomingMessage, res: ServerResponse) => {
      this.inFlight += 1;
      this.seen += 1;
      this.lastSeen = performance.now();
      res.once('close', () => {
        this.inFlight -= 1;
        this.seen += 1;
        this.lastSeen = performance.now();
        if (this.inFlight > 0) return;
        for (const wake of [...this.waiters]) wake();
      });
    });
  }

  /**
   * How long no request has been in flight (ms), and the number of the last request to start
   * or end, which changes whenever one does; 0 while one is in flight.
   */
  quiet(): { forMs: number; since: number } {
    if (this.inFlight > 0) return { forMs: 0, since: this.seen };
    return { forMs: performance.now() - this.lastSeen, since: this.seen };
  }

  /**
   * Resolves once no request is in flight and none started or ended for `quietMs`, or after
   * `maxWaitMs` whatever the server does.
   */
  async whenIdle(maxWaitMs: number, quietMs = 0): Promise<void> {
    const deadline = performance.now() + maxWaitMs;
    for (;;) {
      const left = deadline - performance.now();
      if (left <= 0) return;
      if (this.inFlight > 0) {
        await this.nextIdle(left);
        continue;
      }
      const quietFor = performance.now() - this.lastSeen;
      if (quietFor >= quietMs) return;
      await sleep(Math.min(quietMs - quietFor, left));
    }
  }

  /** Resolves when the last request in flight ends, or after `waitMs`. */
  private nextIdle(waitMs: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = (): void => {
        this.waiters.delete(wake);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(wake, waitMs);
      timer.unref();
      this.waiters.add(wake);
    });
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(1, Math.ceil(ms))).unref());
}

/** Resolves once every step ran (or threw: `onError` hears of it and the next step runs). */
export async function runWhenIdle(
  activity: RequestActivity,
  steps: readonly (() => void)[],
  onError: (err: unknown) => void,
  options: IdleStepsOptions = {},
): Promise<void> {
  const maxWaitMs = options.maxWaitMs ?? MAX_WAIT_MS;
  const quietMs = options.quietMs ?? QUIET_MS;
  for (const step of steps) {
    await nextTurn();
    await activity.whenIdle(maxWaitMs, quietMs);
    try {
      step();
    } catch (err) {
      onError(err);
    }
  }
}
