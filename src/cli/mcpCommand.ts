/**
 * `folio mcp`: the MCP server over stdio, for assistants that start it as a subprocess. It acts
 * through the HTTP API of the Folio at FOLIO_API_URL with FOLIO_API_KEY (apiClientEnv.ts), so it
 * works against a remote install too. stdout carries the protocol alone; nothing else is
 * printed there. Returns when the client closes the connection, or when its input ends and
 * every request already read has been answered: a client that pipes requests and closes its
 * end still gets every answer.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { createMcpServer } from '../mcp/mcpServer.js';
import { apiClientFromEnv } from './apiClientEnv.js';

type Id = string | number;
const requestId = (message: JSONRPCMessage): Id | undefined => ('method' in message && 'id' in message ? message.id : undefined);
const answerId = (message: JSONRPCMessage): Id | undefined => (!('method' in message) && 'id' in message && message.id !== null ? message.id : undefined);

/** Counts the requests read and not yet answered, through the transport's two ends. */
function trackInFlight(transport: StdioServerTransport): { settled(): Promise<void> } {
  const inFlight = new Set<Id>();
  let wake: (() => void) | undefined;
  const received = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage) => {
    const id = requestId(message);
    if (id !== undefined) inFlight.add(id);
    received?.(message);
  };
  const send = transport.send.bind(transport);
  transport.send = async (message: JSONRPCMessage) => {
    await send(message);
    const id = answerId(message);
    if (id !== undefined && inFlight.delete(id) && inFlight.size === 0) wake?.();
  };
  return {
    settled: () => (inFlight.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => (wake = resolve))),
  };
}

export async function mcpCommand(env: Record<string, string | undefined>): Promise<number> {
  const { client } = apiClientFromEnv(env);
  const server = createMcpServer(client);
  const transport = new StdioServerTransport();
  let inFlight: { settled(): Promise<void> } | undefined;
  const done = new Promise<void>((resolve) => {
    server.onclose = resolve;
    process.stdin.once('end', () => void (inFlight?.settled() ?? Promise.resolve()).then(resolve));
  });
  await server.connect(transport);
  inFlight = trackInFlight(transport);
  await done;
  await server.close();
  return 0;
}
