import { createServer, STATUS_CODES, type IncomingMessage, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface RecordingServer {
  url: string;
  requests: RecordedRequest[];
  /** Decides each answer (default 200 with an empty body). */
  respond: (req: RecordedRequest) => { status: number; body?: string; headers?: Record<string, string> };
  close(): Promise<void>;
}

/**
 * A real HTTP server on loopback that records what it is sent and answers as told: the stand-in
 * for a cache's purge endpoint or a SaaS API (CloudFront, Cloudflare) that cannot run here. The
 * tests check each request as the provider documents it.
 */
export async function startRecordingServer(options: { anyMethod?: boolean } = {}): Promise<RecordingServer> {
  const state: RecordingServer = {
    url: '',
    requests: [],
    respond: () => ({ status: 200 }),
    close: async () => undefined,
  };
  if (options.anyMethod)
    return listen(
      state,
      createTcpServer((socket) => answerRaw(state, socket)),
    );
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const recorded = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      state.requests.push(recorded);
      const answer = state.respond(recorded);
      res.writeHead(answer.status, answer.headers ?? {});
      res.end(answer.body ?? '');
    });
  });
  return listen(state, server);
}

async function listen(state: RecordingServer, server: Server | TcpServer): Promise<RecordingServer> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return state;
}

/**
 * Node's HTTP parser knows a fixed list of methods and answers 400 to others, such as Varnish's
 * BAN; a cache takes any method, so this reads one request per connection by hand: the request
 * line, the headers and a Content-Length body (purges carry none), then answers and closes.
 */
function answerRaw(state: RecordingServer, socket: Socket): void {
  let buffer = Buffer.alloc(0);
  socket.on('error', () => undefined);
  socket.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    const end = buffer.indexOf('\r\n\r\n');
    if (end < 0) return;
    const [requestLine = '', ...lines] = buffer.subarray(0, end).toString('latin1').split('\r\n');
    const headers: IncomingMessage['headers'] = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    if (buffer.length < end + 4 + length) return;
    const [method = '', url = ''] = requestLine.split(' ');
    const recorded = { method, url, headers, body: buffer.subarray(end + 4, end + 4 + length).toString('utf8') };
    state.requests.push(recorded);
    const answer = state.respond(recorded);
    const body = Buffer.from(answer.body ?? '');
    const head = [
      `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? 'Status'}`,
      `content-length: ${body.length}`,
      'connection: close',
      ...Object.entries(answer.headers ?? {}).map(([k, v]) => `${k}: ${v}`),
    ];
    socket.end(Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), body]));
  });
}
