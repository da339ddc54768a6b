import { connect } from 'node:net';

export interface RawResponse {
  /** Status of the first response on the connection (0 when none came). */
  status: number;
  /** Header names lower-cased; the last value wins. */
  headers: Record<string, string>;
  body: string;
  /** Everything the server sent, for checks on what follows the first response. */
  raw: string;
}

export interface RawExchange {
  response: RawResponse;
  /** Bytes of `parts` written before the connection failed or ended (all of them when none failed). */
  written: number;
  /** The error code a write or the connection raised (EPIPE, ECONNRESET), if any. */
  writeError: string | null;
}

/** Splits the first HTTP/1.1 response off what a connection received. */
export function parseRawResponse(raw: string): RawResponse {
  const headEnd = raw.indexOf('\r\n\r\n');
  if (headEnd < 0) return { status: 0, headers: {}, body: '', raw };
  const [statusLine = '', ...lines] = raw.slice(0, headEnd).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? 0);
  const body = Buffer.from(raw.slice(headEnd + 4), 'latin1')
    .subarray(0, length)
    .toString('utf8');
  return { status: Number(statusLine.split(' ')[1] ?? 0), headers, body, raw };
}

/**
 * Writes `parts` on one TCP connection, one after another with `pauseMs` between them, and
 * collects everything the server sends until it closes the connection. Below fetch and
 * node:http, so requests can be malformed, pipelined or sent slowly on purpose.
 */
export function rawExchange(port: number, parts: (string | Buffer)[], pauseMs = 0): Promise<RawExchange> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1' });
    const received: Buffer[] = [];
    let written = 0;
    let writeError: string | null = null;
    const deadline = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server neither answered nor closed within 15 s; got ${Buffer.concat(received).toString('latin1').slice(0, 200)}`));
    }, 15_000);
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      writeError ??= err.code ?? err.message;
    });
    socket.on('close', () => {
      clearTimeout(deadline);
      const raw = Buffer.concat(received).toString('latin1');
      resolve({ response: parseRawResponse(raw), written, writeError });
    });
    socket.on('connect', async () => {
      for (const part of parts) {
        if (socket.destroyed || writeError !== null) return;
        const ok = await new Promise<boolean>((done) => socket.write(part, (err) => done(!err)));
        if (!ok) return;
        written += Buffer.byteLength(part);
        if (pauseMs > 0) await new Promise((r) => setTimeout(r, pauseMs));
      }
      // Half-close: the server still answers, then closes its side.
      if (!socket.destroyed) socket.end();
    });
  });
}
