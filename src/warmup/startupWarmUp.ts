/**
 * The warm-up of a fresh server process. It starts once the server answered its first request
 * (an orchestrator's health check, usually), or after a second without one: its steps hold the
 * event loop, which the first request of a fresh process would otherwise wait out. Then, only
 * while no request is in flight (idleSteps.ts), the libraries left out of start-up are loaded and
 * the worker threads started, so that neither the first answer nor the first post waits for
 * them, and the search indexes and listings in use before the restart are loaded again
 * (warmUp.ts), so that the first query and the first publish of those blogs do not wait either.
 */
import type { Server, ServerResponse } from 'node:http';
import { loadMarkdownPipeline } from '../content/markdown.js';
import { jsonParser } from '../http/middleware/jsonBody.js';
import { schemaWarmUpSteps, validators } from '../http/middleware/validate.js';
import type { Logger } from '../lib/logger.js';
import { runWhenIdle, type RequestActivity } from './idleSteps.js';
import type { WarmUp } from './warmUp.js';

/** How long the warm-up waits for a first request before it starts anyway. */
const FIRST_REQUEST_WAIT_MS = 1000;
/** A remembered blog's warm-up waits for a quiet moment at most this long (idleSteps.ts). */
const QUIET_WAIT_MS = 2_000;
const QUIET_MS = 30;

export interface StartupWarmUpDeps {
  server: Server;
  /** Attached to the server before it listened. */
  activity: RequestActivity;
  logger: Logger;
  metrics: { load(): Promise<unknown> };
  heavy: { prestart(): void };
  /** Reader analytics' counting thread and rules; null where no site is served (no beacon arrives). */
  analytics: { prestart(): void } | null;
  warmUp: Pick<WarmUp, 'warm'>;
}

export function warmUpAfterFirstRequest(deps: StartupWarmUpDeps): void {
  const { server, activity, logger } = deps;
  let waiting: NodeJS.Timeout | undefined;
  const start = (): void => {
    if (waiting === undefined) return;
    clearTimeout(waiting);
    waiting = undefined;
    server.off('request', onFirstRequest);
    loadLazyParts(deps);
    deps.warmUp
      .warm({ whenQuiet: () => activity.whenIdle(QUIET_WAIT_MS, QUIET_MS) })
      .catch((err: unknown) => logger.warn({ err }, 'warm-up failed; indexes and listings load on first use'));
  };
  const onFirstRequest = (_req: unknown, res: ServerResponse): void => {
    res.once('close', () => setImmediate(start));
  };
  waiting = setTimeout(start, FIRST_REQUEST_WAIT_MS).unref();
  server.on('request', onFirstRequest);
}

/** Libraries left out of start-up (ajv, the Markdown pipeline, the JSON body parser, prom-client) and the worker threads (counting's too). */
function loadLazyParts(deps: StartupWarmUpDeps): void {
  const { logger } = deps;
  const loadMetrics = (): void => {
    deps.metrics.load().catch((err: unknown) => logger.warn({ err }, 'loading the metrics failed; GET /metrics tries again'));
  };
  // prom-client first: until it loads, request observations wait in a bounded queue (metrics/metrics.ts).
  const steps = [
    loadMetrics,
    () => void validators(),
    ...schemaWarmUpSteps(),
    loadMarkdownPipeline,
    () => void jsonParser(),
    () => deps.heavy.prestart(),
    ...(deps.analytics ? [() => deps.analytics!.prestart()] : []),
  ];
  // runWhenIdle never rejects: each step's failure goes to the callback.
  void runWhenIdle(deps.activity, steps, (err) => logger.warn({ err }, 'warm-up step failed; it runs again on first use'));
}
