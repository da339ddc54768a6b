import pino, { type Logger } from 'pino';

export type { Logger };

/**
 * Longest a log line waits in the buffer before it is written: a quiet server's lines, the
 * "listening" line first, must reach stdout promptly, not at shutdown.
 */
export const LOG_FLUSH_INTERVAL_MS = 250;

/**
 * Structured JSON logs. Authorization headers and keys are never passed to the logger; the
 * redact list is a second line of defence in case a future log call includes a request.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: 'folio' },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: ['req.headers.authorization', 'headers.authorization', 'authorization', 'key', 'api_key'], censor: '[redacted]' },
  };
  return pino(options, destination ?? stdoutDestination(level));
}

/**
 * Buffered asynchronous writes: one write(2) per ~4 KB of log lines under load instead of one
 * per request line, which would cost a good part of the API's throughput; and a flush every
 * LOG_FLUSH_INTERVAL_MS (an unref'd timer in sonic-boom), so a quiet server's lines still
 * reach stdout within a second. What is left at exit is written by pino's exit hook.
 * A silent logger (tests) gets no timer.
 */
function stdoutDestination(level: string): pino.DestinationStream {
  const periodicFlush = level === 'silent' ? 0 : LOG_FLUSH_INTERVAL_MS;
  return pino.destination({ dest: 1, sync: false, minLength: 4096, periodicFlush });
}

/**
 * Starts writing what is buffered now rather than at the next periodic flush, and resolves
 * when the destination has drained, or after `timeoutMs` (a stdout nobody reads must not hold
 * a shutdown).
 */
export function flushLogs(logger: Logger, timeoutMs = 1000): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, timeoutMs);
    timer.unref();
    logger.flush(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
