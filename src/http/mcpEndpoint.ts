/**
 * `POST /mcp`: the MCP server (src/mcp) over Streamable HTTP on the main server, for hosted
 * agents (issue 14). The caller's Bearer key is authenticated first (401 otherwise); each
 * request then gets a stateless MCP server whose tools call this server's own API over loopback
 * with that same key, so scopes, plans, rate limits and validation are exactly the API's.
 *
 * The loopback address is the local end of the caller's own connection (an address this
 * server is listening on), never anything from the request's headers: a forged `Host` cannot
 * send the caller's key elsewhere. Stateless mode: no session, no server-initiated stream, so
 * `GET` and `DELETE` answer 405 as the protocol describes (app.ts).
 */
import type { Middleware } from 'koa';
import { BadRequestError } from '../errors.js';
import type { AppState } from './state.js';

/**
 * The SDK (with its own ajv, zod and HTTP stacks) and the API client are loaded on the first /mcp request, not at
 * start-up: most servers never see one (test/integration/lazyDependencies.test.ts).
 */
async function mcpModules() {
  const [{ StreamableHTTPServerTransport }, { createMcpServer }, { createFolioClient }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('../mcp/mcpServer.js'),
    import('../client/folioClient.js'),
  ]);
  return { StreamableHTTPServerTransport, createMcpServer, createFolioClient };
}

function loopbackUrl(address: string | undefined, port: number | undefined, secure: boolean): string {
  const host = !address || address === '::' || address === '0.0.0.0' ? '127.0.0.1' : address.startsWith('::ffff:') ? address.slice(7) : address;
  return `${secure ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port ?? 80}`;
}

/**
 * One JSON-RPC 2.0 message, checked before the SDK's transport sees it, so that malformed input
 * gets the API's `{error, message}` (the transport would answer in JSON-RPC's own error form).
 */
function checkMessage(body: unknown): void {
  const message = body as { jsonrpc?: unknown; method?: unknown; id?: unknown; result?: unknown; error?: unknown } | null;
  if (typeof message !== 'object' || message === null || Array.isArray(message)) throw new BadRequestError('the body must be one JSON-RPC 2.0 message (an object; batches are not supported)');
  if (message.jsonrpc !== '2.0') throw new BadRequestError('jsonrpc must be "2.0"');
  const isRequest = typeof message.method === 'string' && message.method.length > 0;
  const isAnswer = message.method === undefined && (message.result !== undefined || message.error !== undefined);
  if (!isRequest && !isAnswer) throw new BadRequestError('method must be a non-empty string');
  if (message.id !== undefined && typeof message.id !== 'string' && !Number.isInteger(message.id)) throw new BadRequestError('id must be a string or an integer');
}

export function mcpEndpoint(): Middleware<AppState> {
  return async (ctx) => {
    checkMessage(ctx.request.body);
    // Answers are always JSON here (enableJsonResponse); a client that also takes an event
    // stream, or says nothing, is served the same.
    ctx.req.headers.accept = 'application/json, text/event-stream';
    ctx.req.headers['content-type'] = 'application/json';
    const apiKey = (ctx.get('authorization').match(/^Bearer\s+(\S+)$/i) ?? [])[1] ?? '';
    const { StreamableHTTPServerTransport, createMcpServer, createFolioClient } = await mcpModules();
    const socket = ctx.req.socket;
    const client = createFolioClient({ baseUrl: loopbackUrl(socket.localAddress, socket.localPort, 'encrypted' in socket), apiKey });
    const server = createMcpServer(client);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    ctx.res.once('close', () => {
      void transport.close();
      void server.close();
    });
    // The transport writes the answer itself, from the body jsonBody already parsed.
    ctx.respond = false;
    await transport.handleRequest(ctx.req, ctx.res, ctx.request.body);
  };
}
