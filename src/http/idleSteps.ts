/**
 * Runs start-up work (main.ts's warm-up: loading ajv and compiling the schemas, the Markdown
 * pipeline, the JSON body parser, prom-client, starting the worker threads) one step per turn of
 * the event loop, and only while the server has no request in flight. Each step holds the loop
 * for 10-40 ms; run back to back, they made the first requests after a restart wait for them:
 * the first publish of a 100-post blog took ~140 ms when it ran alongside the warm-up and ~60 ms
 * without it. A request that stays open (a slow upload, a stream) postpones the rest by at most
 * `maxWaitMs`; whatever a request needs before its step ran, it loads itself on first use.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { setImmediate as nextTurn } from 'node:timers/promises';

export interface IdleStepsOptions {
  /** Longest a step waits for the server to be idle (default 2 s). */
  maxWaitMs?: number;
}

const MAX_WAIT_MS = 2_000;

/** Counts the server's requests in flight; attach it before the server listens. */
export class RequestActivity {
  private inFlight = 0;
  private readonly waiters = new Set<() => void>();

  constructor(server: Server) {
    server.on('request', (_req: IncomingMessage, res: ServerResponse) => {
      this.inFlight += 1;
      res.once('close', () => {
        this.inFlight -= 1;
        if (this.inFlight > 0) return;
        for (const wake of [...this.waiters]) wake();
      });
    });
  }

  /** Resolves when no request is in flight, or after `maxWaitMs` whatever the server does. */
  whenIdle(maxWaitMs: number): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = (): void => {
        this.waiters.delete(wake);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(wake, maxWaitMs);
      timer.unref();
      this.waiters.add(wake);
    });
  }
}

/** Resolves once every step ran (or threw: `onError` hears of it and the next step runs). */
export async function runWhenIdle(activity: RequestActivity, steps: readonly (() => void)[], onError: (err: unknown) => void, options: IdleStepsOptions = {}): Promise<void> {
  const maxWaitMs = options.maxWaitMs ?? MAX_WAIT_MS;
  for (const step of steps) {
    await nextTurn();
    await activity.whenIdle(maxWaitMs);
    try {
      step();
    } catch (err) {
      onError(err);
    }
  }
}
