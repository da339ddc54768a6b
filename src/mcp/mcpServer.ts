/**
 * Folio as a Model Context Protocol server (docs/cli.md), built with the official SDK's low-level
 * `Server`, so the tools' input schemas are the API's own JSON Schemas as they are (tools.ts),
 * not re-declared in another schema language. The same server runs over stdio (`folio mcp`,
 * talking to a local or remote Folio over HTTP) and over Streamable HTTP at `/mcp` on the main
 * server (src/http/mcpEndpoint.ts); either way every tool goes through the typed API client, with
 * the caller's key.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { FolioApiError, type FolioClient, type FieldProblem } from '../client/folioClient.js';
import { TOOLS, type FolioTool } from './tools.js';

/** The version MCP clients see; the API's own version is in /v1/openapi.json. */
const SERVER_INFO = { name: 'folio', version: '1.1.0' };

const INSTRUCTIONS = `Folio publishes blogs written in Markdown. Start with list_blogs (or create_blog) for a blog's id and pass it as blog_id unless the key is bound to a blog; create_post writes a draft, publish_post or schedule_post puts it on the blog, search_posts finds published posts, upload_media adds images to use in posts. Errors carry the API's error code and message, the fields at fault (details) and the plan needed (required_plan).`;

/** The API names its headers in messages; a tool takes them as these arguments. */
const HEADER_ARGUMENTS: [RegExp, string][] = [
  [/X-Blog-Id/g, 'blog_id'],
  [/If-Match/g, 'if_match'],
  [/Idempotency-Key/g, 'idempotency_key'],
  [/\bETag\b/g, 'etag'],
];
const inArguments = (text: string): string => HEADER_ARGUMENTS.reduce((out, [header, argument]) => out.replace(header, argument), text);

/**
 * A failed call as a tool error: the API's error body, with header names replaced by the tool
 * arguments that send them and `details` fields named as the tool's arguments.
 */
function toolError(err: unknown, tool?: FolioTool): CallToolResult {
  const { code, message, extra } =
    err instanceof FolioApiError
      ? { code: err.code, message: inArguments(err.message), extra: err.extra }
      : { code: 'internal_error', message: err instanceof Error ? err.message : String(err), extra: {} };
  const details = extra.details?.map((problem: FieldProblem) => ({
    field: tool?.bodyArgument ? `${tool.bodyArgument}.${problem.field}` : problem.field,
    message: inArguments(problem.message),
  }));
  const structured = {
    error: code,
    message,
    ...(details ? { details } : {}),
    ...(extra.required_plan ? { required_plan: extra.required_plan } : {}),
    ...(extra.retry_after !== undefined ? { retry_after: extra.retry_after } : {}),
  };
  const lines = [
    `${code}: ${message}`,
    ...(details ?? []).map((d) => `- ${d.field}: ${d.message}`),
    ...(extra.required_plan ? [`required plan: ${extra.required_plan}`] : []),
  ];
  return { isError: true, content: [{ type: 'text', text: lines.join('\n') }], structuredContent: structured };
}

function toolResult(value: unknown): CallToolResult {
  const structured = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { result: value };
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }], structuredContent: structured };
}

/**
 * The SDK parses a request with the schema its handler was registered with before the handler
 * runs, and a parse failure there (`arguments` not an object) became -32603 internal error.
 * Registered with a schema that checks only the method, the SDK's own tools/call wrapper does
 * the full check and answers -32602 invalid params, as JSON-RPC wants for bad params.
 */
const ANY_TOOLS_CALL = CallToolRequestSchema.pick({ method: true }).loose();

export function createMcpServer(client: FolioClient): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: TOOLS.map(({ name, description, inputSchema, annotations }) => ({ name, description, inputSchema, annotations })),
  }));
  server.setRequestHandler(ANY_TOOLS_CALL, async (raw) => {
    const request = CallToolRequestSchema.parse(raw);
    const tool = TOOLS.find((t) => t.name === request.params.name);
    if (!tool) return toolError(new FolioApiError(404, 'not_found', `no tool named ${JSON.stringify(request.params.name)}`));
    const args = request.params.arguments ?? {};
    // Identifiers go into the request path, where the API cannot name the missing field; the
    // rest of the input is validated by the API itself.
    const missing = (tool.inputSchema.required as string[] | undefined)?.find((name) => args[name] === undefined || args[name] === null);
    if (missing) return toolError(new FolioApiError(400, 'bad_request', `${missing} is required`, { details: [{ field: missing, message: 'is required' }] }));
    try {
      return toolResult(await tool.run(client, args));
    } catch (err) {
      return toolError(err, tool);
    }
  });
  return server;
}
