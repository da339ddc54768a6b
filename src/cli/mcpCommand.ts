/**
 * `folio mcp`: the MCP server over stdio, for assistants that start it as a subprocess. It acts
 * through the HTTP API of the Folio at FOLIO_API_URL with FOLIO_API_KEY (apiClientEnv.ts), so it
 * works against a remote install too. stdout carries the protocol alone; nothing else is
 * printed there. Returns when the client closes the connection.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMcpServer } from '../mcp/mcpServer.js';
import { apiClientFromEnv } from './apiClientEnv.js';

export async function mcpCommand(env: Record<string, string | undefined>): Promise<number> {
  const { client } = apiClientFromEnv(env);
  const server = createMcpServer(client);
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
    process.stdin.once('end', resolve);
  });
  await server.connect(new StdioServerTransport());
  await closed;
  await server.close();
  return 0;
}
