import { createLogger, type Logger } from '../../src/lib/logger.js';

export interface CapturedLog {
  logger: Logger;
  /** The JSON lines written so far. */
  lines: string[];
  /** Lines that name the request id (the error handler logs the stack of a 500 with it). */
  linesFor(requestId: string | undefined): string[];
}

/** A real logger writing into memory, so a test that meets a 500 can show the server's stack. */
export function captureLog(level = 'warn'): CapturedLog {
  const lines: string[] = [];
  const logger = createLogger(level, { write: (line: string) => void lines.push(line) });
  return {
    logger,
    lines,
    linesFor: (requestId) => (requestId ? lines.filter((line) => line.includes(requestId)) : []),
  };
}
