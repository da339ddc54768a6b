/**
 * What SIGTERM and SIGINT do (docs/operations.md): stop accepting connections, let the requests in flight
 * and the running publish jobs finish within a bound, close everything in order, write the last
 * log lines, exit 0. A second signal exits at once.
 */
import type { Server } from 'node:http';
import { flushLogs, type Logger } from '../lib/logger.js';

export interface ShutdownOptions {
  server: Server;
  logger: Logger;
  /** Bound on the whole stop (FOLIO_SHUTDOWN_TIMEOUT); then open connections are cut and the process exits. */
  timeoutMs: number;
  /** Stops what starts new work (the scheduler); runs at once, while requests drain. */
  stopIntake: () => Promise<void>;
  /** Runs once no connection is left: waits for running jobs, stops worker threads, closes the database. */
  close: () => Promise<void>;
  exit: (code: number) => void;
}

/** While draining, connections that finished their request are closed at this pace. */
const IDLE_SWEEP_MS = 100;

const SIGNAL_EXIT_CODES: Record<string, number> = { SIGINT: 130, SIGTERM: 143 };

/** Resolves when the server has closed, closing keep-alive connections as they become idle. */
function drain(server: Server): Promise<void> {
  return new Promise((resolve) => {
    const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
    sweep.unref();
    // Stops listening at once: new connections are refused; requests on open ones still run.
    server.close(() => {
      clearInterval(sweep);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/**
 * The handler for both signals. A publish job cut by the bound is not lost: jobs are durable
 * rows that stay pending until done, and idempotent, so it runs again at the next start.
 */
export function createShutdown(options: ShutdownOptions): (signal: string) => Promise<void> {
  const { server, logger } = options;
  let stopping = false;

  return async (signal) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting without waiting');
      await flushLogs(logger, 200);
      options.exit(SIGNAL_EXIT_CODES[signal] ?? 1);
      return;
    }
    stopping = true;
    const started = performance.now();
    // Stop listening before saying so: whoever reads the line may connect at once, and a process
    // descheduled between the write and server.close() would still accept that connection.
    const drained = drain(server);
    logger.info({ signal, timeoutMs: options.timeoutMs }, 'shutting down: refusing new connections, finishing requests and running jobs');
    logger.flush();

    const work = Promise.all([drained, options.stopIntake()]).then(options.close);
    // Settles either way, so a failure after the bound is not an unhandled rejection.
    const outcome = work.then(
      () => ({ failed: false, error: null as unknown }),
      (error: unknown) => ({ failed: true, error }),
    );
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), options.timeoutMs);
    });
    const result = await Promise.race([outcome, bound]);
    clearTimeout(timer);

    let code = 0;
    if (result === null) {
      server.closeAllConnections();
      logger.warn(
        { timeoutMs: options.timeoutMs },
        'shutdown bound reached: open connections closed; a publish job still running stays pending and runs again at the next start',
      );
    } else if (result.failed) {
      code = 1;
      logger.error({ err: result.error }, 'shutdown failed');
    }
    logger.info({ ms: Math.round(performance.now() - started) }, 'folio stopped');
    await flushLogs(logger);
    options.exit(code);
  };
}
