/**
 * The node:http server around the Koa app, and what happens on the connection before a request
 * reaches Koa: timeouts, `Expect: 100-continue`, and requests Node's parser refuses.
 */
import { randomUUID } from 'node:crypto';
import { createServer, maxHeaderSize, STATUS_CODES, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '../lib/logger.js';
import { bodyLimit } from './bodyLimits.js';

export const SERVER_TIMEOUTS = {
  /** Above the 60 s idle timeout of common load balancers (AWS ALB), so they close first. */
  keepAliveTimeout: 65_000,
  /** Node's default: the request line and headers must arrive within this time. */
  headersTimeout: 60_000,
  /**
   * The whole request, body included (not the time to answer it). The largest body accepted is
   * 2 MB; Node's 300 s default let a slow sender hold a connection five minutes.
   */
  requestTimeout: 120_000,
} as const;

/** How long a refused connection may keep sending before it is destroyed. */
const LINGER_MS = 2_000;

interface Refusal {
  status: number;
  error: string;
  message: string;
}

interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
}

/** What to answer for a parser error, or null to close without answering. */
function refusalFor(err: Error & { code?: string; reason?: unknown }): Refusal | null {
  const code = err.code ?? '';
  if (code === 'HPE_HEADER_OVERFLOW') {
    // A code of its own: these requests never reach the API's routes (docs/api-behaviour.md).
    return { status: 431, error: 'headers_too_large', message: `request line and headers are larger than ${maxHeaderSize} bytes` };
  }
  if (code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW') {
    return { status: 413, error: 'payload_too_large', message: 'chunk extensions of the request body are too large' };
  }
  if (code.startsWith('HPE_')) {
    // llhttp's reasons are fixed sentences ("Invalid header value char"), never request bytes.
    const reason = typeof err.reason === 'string' && err.reason !== '' ? `: ${err.reason}` : '';
    return { status: 400, error: 'bad_request', message: `malformed HTTP request${reason}` };
  }
  // ECONNRESET (nobody left to answer), ERR_HTTP_REQUEST_TIMEOUT (a client too slow to send
  // its request is not waiting for an answer either), and socket errors.
  return null;
}

function responseBytes(refusal: Refusal, requestId: string, extraHeaders: string[] = []): Buffer {
  const body = Buffer.from(JSON.stringify({ error: refusal.error, message: refusal.message }), 'utf8');
  const head = [
    `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status] ?? 'Error'}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${body.length}`,
    `X-Request-Id: ${requestId}`,
    'X-Content-Type-Options: nosniff',
    ...extraHeaders,
    'Connection: close',
    '',
    '',
  ].join('\r\n');
  return Buffer.concat([Buffer.from(head, 'latin1'), body]);
}

/**
 * The http server for the app (main.ts and the tests use it alike).
 *
 * - Requests Node's parser refuses (malformed request line or header, headers over
 *   `maxHeaderSize`) get the `{error, message}` JSON of every other error instead of Node's
 *   bare `400`/`431` with an empty body: 400 `bad_request`, 431 `headers_too_large`.
 * - `Expect: 100-continue` with a Content-Length over the route's limit (bodyLimits.ts) is not invited: the client gets the
 *   413 from jsonBody instead of `100 Continue` and never sends the body (curl asks for large
 *   uploads). Node then closes the connection after that answer by itself. Any other
 *   expectation is a JSON 417 `expectation_failed`.
 * - A request without Host reaches the app (Node would answer a bare 400).
 * - `CONNECT` gets a JSON 405 `method_not_allowed` and the connection closes (Node would close
 *   it without an answer).
 */
export function createHttpServer(handler: RequestListener, logger: Logger): Server {
  const server = createServer(
    {
      headersTimeout: SERVER_TIMEOUTS.headersTimeout,
      requestTimeout: SERVER_TIMEOUTS.requestTimeout,
      // Node would refuse an HTTP/1.1 request without Host with a bare 400; the API does not
      // need the header, and the site server treats a missing one as no blog.
      requireHostHeader: false,
    },
    handler,
  );
  server.keepAliveTimeout = SERVER_TIMEOUTS.keepAliveTimeout;

  // The latest request of each connection: whether the refusal may be written, and when,
  // depends on it (see clientError below).
  const latest = new WeakMap<Socket, Exchange>();
  const remember = (req: IncomingMessage, res: ServerResponse): void => {
    latest.set(req.socket, { req, res });
  };
  server.prependListener('request', remember);

  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    if (!(Number(req.headers['content-length']) > bodyLimit(req.method ?? '', req.url ?? ''))) res.writeContinue();
    // As a 'request', so every listener of those (the app, `remember`, main.ts's count of
    // requests in flight) sees it, as it sees any other request.
    server.emit('request', req, res);
  });

  // Any other expectation (RFC 9110 §10.1.1) would get Node's bare 417; it gets the JSON shape.
  server.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) => {
    const requestId = randomUUID();
    const body = JSON.stringify({ error: 'expectation_failed', message: 'the Expect header can only ask for 100-continue' });
    logger.info({ requestId, status: 417 }, 'request refused: unsupported Expect header');
    res.writeHead(417, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(body),
      'X-Request-Id': requestId,
      'X-Content-Type-Options': 'nosniff',
      Connection: 'close',
    });
    res.end(body);
  });

  // CONNECT asks for a tunnel, which Node hands to 'connect' listeners and, with none, answers
  // by closing the connection without a word. Folio is no proxy: a JSON 405, then close.
  server.on('connect', (_req: IncomingMessage, socket: Socket) => {
    const requestId = randomUUID();
    logger.info({ requestId, status: 405 }, 'request refused: CONNECT');
    socket.on('error', () => socket.destroy());
    const linger = setTimeout(() => socket.destroy(), LINGER_MS);
    linger.unref();
    socket.once('close', () => clearTimeout(linger));
    socket.once('end', () => socket.destroy());
    socket.end(
      responseBytes({ status: 405, error: 'method_not_allowed', message: 'CONNECT is not supported: this server is not a proxy' }, requestId, [
        'Allow: GET, HEAD, POST, PUT, DELETE, OPTIONS',
      ]),
    );
    socket.resume();
  });

  const refused = new WeakSet<Socket>();
  server.on('clientError', (err: Error & { code?: string }, socket: Socket) => {
    // The parser may report again on later bytes of a connection already being refused.
    if (refused.has(socket)) return;
    refused.add(socket);
    const refusal = refusalFor(err);
    if (!refusal || !socket.writable) {
      socket.destroy();
      return;
    }
    const answer = (): void => {
      if (!socket.writable) {
        socket.destroy();
        return;
      }
      const requestId = randomUUID();
      logger.info({ requestId, status: refusal.status, code: err.code }, 'request refused by the HTTP parser');
      // Half-close after the answer and keep reading what the client still sends: closing with
      // unread bytes makes the kernel send a reset, which can destroy the answer before the
      // client reads it. The client closes once it has the answer; LINGER_MS bounds the wait.
      const linger = setTimeout(() => socket.destroy(), LINGER_MS);
      linger.unref();
      socket.once('close', () => clearTimeout(linger));
      socket.once('end', () => socket.destroy());
      socket.end(responseBytes(refusal, requestId));
      socket.resume();
    };
    const last = latest.get(socket);
    // The error is in the first request's head: nothing else was said on this connection.
    if (!last) return answer();
    // The error is in the body of the request being handled: the refusal is its answer, unless
    // its answer has begun (then a second one would corrupt it, and closing is all that is left).
    if (!last.req.complete) return last.res.headersSent ? void socket.destroy() : answer();
    // The error is in a pipelined request behind one still being answered: answer in order.
    if (last.res.writableFinished) return answer();
    last.res.once('close', answer);
  });
  return server;
}
