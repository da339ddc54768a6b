/**
 * `POST /mcp`: the MCP server (src/mcp) over Streamable HTTP on the main server, for hosted
 * agents (docs/cli.md). The caller's Bearer key is authenticated first (401 otherwise); each
 * request then gets a stateless MCP server whose tools call this server's own API over loopback
 * with that same key, so scopes, plans, rate limits and validation are exactly the API's.
 *
 * The loopback address is the local end of the caller's own connection (an address this
 * server is listening on), never anything from the request's headers: a forged `Host` cannot
 * send the caller's key elsewhere. Stateless mode: no session, no server-initiated stream, so
 * `GET` and `DELETE` answer 405 as the protocol describes (app.ts).
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Middleware } from 'koa';
import type { FolioClient } from '../client/folioClient.js';
import { BadRequestError } from '../domain/errors.js';
import { MCP_GRANT_HEADER, type McpGrants } from './mcpGrants.js';
import type { AppState } from './state.js';

/**
 * The SDK (with its own ajv, zod and HTTP stacks) and the API client are loaded on the first /mcp request, not at
 * start-up: most servers never see one (test/integration/lazyDependencies.test.ts).
 */
/**
 * Loads the MCP server's module (src/mcp/mcpServer.ts). The composition root passes it in:
 * mcp/ reads the API's own schemas from http/, so http/ does not import mcp/.
 */
export type McpServerLoader = () => Promise<{ createMcpServer(client: FolioClient): Server }>;

async function mcpModules(loadMcpServer: McpServerLoader) {
  const [{ StreamableHTTPServerTransport }, { JSONRPCMessageSchema }, { createMcpServer }, { createFolioClient }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    loadMcpServer(),
    import('../client/folioClient.js'),
  ]);
  return { StreamableHTTPServerTransport, JSONRPCMessageSchema, createMcpServer, createFolioClient };
}

type McpModules = Awaited<ReturnType<typeof mcpModules>>;

function loopbackUrl(address: string | undefined, port: number | undefined, secure: boolean): string {
  const host = !address || address === '::' || address === '0.0.0.0' ? '127.0.0.1' : address.startsWith('::ffff:') ? address.slice(7) : address;
  return `${secure ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port ?? 80}`;
}

/**
 * One JSON-RPC 2.0 message, checked with the SDK's own schema before its transport sees it, so
 * that input the transport would refuse gets the API's `{error, message}` instead of JSON-RPC's
 * error form (the route fuzzer holds every answer to the API's).
 */
function checkMessage(body: unknown, schema: McpModules['JSONRPCMessageSchema']): void {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new BadRequestError('the body must be one JSON-RPC 2.0 message (an object; batches are not supported)');
  const parsed = schema.safeParse(body);
  if (parsed.success) return;
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ` : '';
  throw new BadRequestError(
    `the body is not a JSON-RPC 2.0 message the MCP server takes (${where}${issue?.message ?? 'invalid'}): an object with jsonrpc "2.0", method, an optional integer or string id and an optional params object, nothing else`,
  );
}

export function mcpEndpoint(grants: McpGrants, loadMcpServer: McpServerLoader): Middleware<AppState> {
  return async (ctx) => {
    const { StreamableHTTPServerTransport, JSONRPCMessageSchema, createMcpServer, createFolioClient } = await mcpModules(loadMcpServer);
    checkMessage(ctx.request.body, JSONRPCMessageSchema);
    // Answers are always JSON here (enableJsonResponse); a client that also takes an event
    // stream, or says nothing, is served the same.
    ctx.req.headers.accept = 'application/json, text/event-stream';
    ctx.req.headers['content-type'] = 'application/json';
    const apiKey = (ctx.get('authorization').match(/^Bearer\s+(\S+)$/i) ?? [])[1] ?? '';
    const socket = ctx.req.socket;
    // The tool's API calls were paid for by this request (the rate limit counted it).
    const grant = ctx.state.auth?.via === 'key' ? grants.issue(ctx.state.auth.key.id) : '';
    const client = createFolioClient({
      baseUrl: loopbackUrl(socket.localAddress, socket.localPort, 'encrypted' in socket),
      apiKey,
      headers: { [MCP_GRANT_HEADER]: grant },
    });
    const server = createMcpServer(client);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    ctx.res.once('close', () => {
      grants.revoke(grant);
      void transport.close();
      void server.close();
    });
    // The transport writes the answer itself, from the body jsonBody already parsed.
    ctx.respond = false;
    await transport.handleRequest(ctx.req, ctx.res, ctx.request.body);
  };
}
