/**
 * Folio as a Model Context Protocol server (issue 14), built with the official SDK's low-level
 * `Server`, so the tools' input schemas are the API's own JSON Schemas as they are (tools.ts),
 * not re-declared in another schema language. The same server runs over stdio (`folio mcp`,
 * talking to a local or remote Folio over HTTP) and over Streamable HTTP at `/mcp` on the main
 * server (src/http/routes/mcp.ts); either way every tool goes through the typed API client, with
 * the caller's key.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { FolioApiError, type FolioClient } from '../client/folioClient.js';
import { TOOLS } from './tools.js';

/** The version MCP clients see; the API's own version is in /v1/openapi.json. */
const SERVER_INFO = { name: 'folio', version: '1.0.0' };

const INSTRUCTIONS = `Folio publishes blogs written in Markdown. Use list_blogs to find a blog's id (pass it as blog_id unless the key is bound to a blog), create_post to write a draft, publish_post or schedule_post to put it on the blog, search_posts to find published posts. Errors carry the API's error code and message.`;

function toolError(err: unknown): CallToolResult {
  const { code, message } =
    err instanceof FolioApiError ? { code: err.code, message: err.message } : { code: 'internal_error', message: err instanceof Error ? err.message : String(err) };
  return { isError: true, content: [{ type: 'text', text: `${code}: ${message}` }], structuredContent: { error: code, message } };
}

function toolResult(value: unknown): CallToolResult {
  const structured = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { result: value };
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }], structuredContent: structured };
}

export function createMcpServer(client: FolioClient): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: TOOLS.map(({ name, description, inputSchema, annotations }) => ({ name, description, inputSchema, annotations })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = TOOLS.find((t) => t.name === request.params.name);
    if (!tool) return toolError(new FolioApiError(404, 'not_found', `no tool named ${JSON.stringify(request.params.name)}`));
    const args = request.params.arguments ?? {};
    // Identifiers go into the request path, where the API cannot name the missing field; the
    // rest of the input is validated by the API itself.
    const missing = (tool.inputSchema.required as string[] | undefined)?.find((name) => args[name] === undefined || args[name] === null);
    if (missing) return toolError(new FolioApiError(400, 'bad_request', `${missing} is required`));
    try {
      return toolResult(await tool.run(client, args));
    } catch (err) {
      return toolError(err);
    }
  });
  return server;
}
