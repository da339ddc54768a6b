/**
 * Requests written byte by byte, below fetch and node:http: both refuse or rewrite what the
 * property suites must send (a Host header, raw UTF-8 in the target or in header values,
 * invalid percent escapes, a body on GET). One request per connection, `Connection: close`.
 */
import { connect } from 'node:net';

export interface HostileRequest {
  method: string;
  /** The request target exactly as sent: path and query, percent-encoded or not. */
  target: string;
  /** In order, repeats allowed. Values are written as UTF-8 (obs-text to the server). */
  headers: [name: string, value: string][];
  body?: Buffer;
}

export interface HostileResponse {
  /** Of the request: a HEAD answer has no body. */
  method: string;
  /** 0 when the server closed without answering. */
  status: number;
  /** Names lower-cased; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
  text: string;
  /** The parsed body when it is JSON, else undefined. */
  json: unknown;
}

/** The bytes of a request: request line, the given headers, Content-Length, Connection: close. */
export function requestBytes(request: HostileRequest): Buffer {
  const lines = [`${request.method} ${request.target} HTTP/1.1`, ...request.headers.map(([name, value]) => `${name}: ${value}`)];
  if (request.body !== undefined) lines.push(`Content-Length: ${request.body.length}`);
  lines.push('Connection: close', '', '');
  return Buffer.concat([Buffer.from(lines.join('\r\n'), 'utf8'), request.body ?? Buffer.alloc(0)]);
}

function decodeChunked(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = Number.parseInt(data.subarray(at, lineEnd).toString('latin1'), 16);
    if (!(size > 0)) break;
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

interface Head {
  status: number;
  headers: Record<string, string>;
  /** Bytes after the head. */
  after: Buffer;
}

/** The head of the final response (interim 1xx responses skipped), or null while incomplete. */
function finalHead(raw: Buffer): Head | null {
  let rest = raw;
  for (;;) {
    const headEnd = rest.indexOf('\r\n\r\n');
    if (headEnd < 0) return null;
    const [statusLine = '', ...lines] = rest.subarray(0, headEnd).toString('latin1').split('\r\n');
    const status = Number(statusLine.split(' ')[1] ?? 0);
    const after = rest.subarray(headEnd + 4);
    if (status >= 100 && status < 200) {
      rest = after;
      continue;
    }
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
    }
    return { status, headers, after };
  }
}

const isChunked = (head: Head): boolean => /chunked/i.test(head.headers['transfer-encoding'] ?? '');

/**
 * Whether the response is complete. A HEAD answer may still carry a body when the HTTP layer
 * wrote it (its refusals do): it counts as complete once Content-Length bytes or none are there.
 */
function isComplete(head: Head, method: string): boolean {
  if (head.status === 204 || head.status === 304) return true;
  if (isChunked(head))
    return head.after.includes('0\r\n\r\n') && (head.after.subarray(0, 5).toString() === '0\r\n\r\n' || head.after.includes('\r\n0\r\n\r\n'));
  const length = head.headers['content-length'];
  if (length !== undefined) return head.after.length >= Number(length) || (method === 'HEAD' && head.after.length === 0);
  return false;
}

/** The final response of what the connection received. */
export function parseResponse(raw: Buffer, method: string): HostileResponse {
  const head = finalHead(raw);
  if (!head) return { method, status: 0, headers: {}, body: Buffer.alloc(0), text: raw.toString('latin1'), json: undefined };
  let body = head.after;
  if (isChunked(head)) body = decodeChunked(head.after);
  else if (head.headers['content-length'] !== undefined) body = head.after.subarray(0, Number(head.headers['content-length']));
  if (method === 'HEAD' && body.length === 0) body = Buffer.alloc(0);
  const text = body.toString('utf8');
  let json: unknown;
  if (/^application\/json/i.test(head.headers['content-type'] ?? '')) {
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
  }
  return { method, status: head.status, headers: head.headers, body, text, json };
}

/**
 * Sends one request on its own connection and returns the server's answer. The client does not
 * half-close after sending, as curl and browsers do not: Node aborts a request whose client
 * half-closed before the answer was written (httpAllowHalfOpen is off), so a half-closing
 * client sees no answer from any handler that awaits something.
 */
export function sendHostile(port: number, request: HostileRequest): Promise<HostileResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1' });
    const received: Buffer[] = [];
    let settled = false;
    const finish = (): void => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      socket.destroy();
      resolve(parseResponse(Buffer.concat(received), request.method));
    };
    const deadline = setTimeout(() => {
      settled = true;
      socket.destroy();
      reject(new Error(`no complete answer within 15 s to ${describeRequest(request)}; got ${Buffer.concat(received).toString('latin1').slice(0, 200)}`));
    }, 15_000);
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk);
      const head = finalHead(Buffer.concat(received));
      if (head && isComplete(head, request.method)) finish();
    });
    // A write the server refused mid-body (EPIPE, ECONNRESET) still leaves its answer to read.
    socket.on('error', () => undefined);
    socket.on('close', finish);
    socket.on('connect', () => socket.write(requestBytes(request)));
  });
}

/** A request as one readable line for failure messages (long values cut). */
export function describeRequest(request: HostileRequest): string {
  const cut = (s: string, n: number): string => (s.length > n ? `${s.slice(0, n)}…(${s.length} chars)` : s);
  const headers = request.headers.map(([name, value]) => `${name}: ${cut(value, 80)}`).join(' | ');
  const body = request.body === undefined ? '' : ` body(${request.body.length} bytes): ${cut(request.body.toString('utf8'), 200)}`;
  return `${request.method} ${cut(request.target, 300)} [${headers}]${body}`;
}
