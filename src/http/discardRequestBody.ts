import type { IncomingMessage } from 'node:http';

export interface DiscardLimits {
  /** Bytes read and thrown away at most; a client sending more is cut off. */
  maxBytes: number;
  /** Time spent at most; a client sending slower than this is cut off. */
  maxMs: number;
}

/**
 * How much of a refused body is read before the refusal is sent. 64 MB covers uploads that
 * are too large by mistake (a file instead of its Markdown) and takes well under a second on a
 * LAN; anything larger or slower is cut off, and such a client may see a reset instead of the 413.
 */
export const DISCARD_LIMITS: DiscardLimits = { maxBytes: 64 * 1024 * 1024, maxMs: 10_000 };

/**
 * Reads the rest of a request body and throws it away, so a refusal (413) is sent only after
 * the client has finished sending.
 *
 * Why: when the server answers and closes while the client is still writing, the server's
 * kernel answers the unread bytes with a reset. A client that is still writing then fails on
 * its next write, and the reset can also discard the response waiting in its receive buffer,
 * so the client sees EPIPE or a reset instead of the 413.
 * Closing after a complete request avoids both.
 *
 * Resolves true when the body ended, false when a limit cut it off or the client went away.
 */
export function discardRequestBody(req: IncomingMessage, limits: DiscardLimits = DISCARD_LIMITS): Promise<boolean> {
  if (req.complete || req.readableEnded) return Promise.resolve(true);
  // A body parser that gave up may have piped the request into a decompressor.
  req.unpipe();
  return new Promise((resolve) => {
    let received = 0;
    const finish = (ended: boolean): void => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      req.off('error', onClose);
      if (!ended) req.pause();
      resolve(ended);
    };
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      if (received > limits.maxBytes) finish(false);
    };
    const onEnd = (): void => finish(true);
    const onClose = (): void => finish(req.complete);
    const timer = setTimeout(() => finish(false), limits.maxMs);
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('close', onClose);
    req.once('error', onClose);
    req.resume();
  });
}
