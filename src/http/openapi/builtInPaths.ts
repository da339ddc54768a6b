/** The paths app.ts serves outside the route table (health, metrics, MCP), as the OpenAPI document describes them. */
import { ERROR_REF, examplesOf, jsonResponse, RATE_LIMIT_HEADERS, REQUEST_ID_HEADER, TRANSPORT_ERRORS } from './responseParts.js';

/** The routes app.ts registers itself, outside the route table; none needs an API key. */
export const builtInPaths: Record<string, Record<string, unknown>> = {
  '/healthz': {
    get: {
      operationId: 'getHealth',
      summary: 'Liveness: the process answers and its database is reachable',
      description:
        'For load balancers and orchestrators: 200 `{"status":"ok"}` once a query of the database succeeded; 500 when it fails. No key needed, and not counted against any rate limit.',
      tags: ['meta'],
      security: [],
      parameters: [],
      responses: {
        '200': jsonResponse('Healthy', { type: 'object', required: ['status'], properties: { status: { const: 'ok' } } }, 'getHealth'),
        ...TRANSPORT_ERRORS,
        '500': ERROR_REF,
      },
    },
  },
  '/v1/openapi.json': {
    get: {
      operationId: 'getOpenApiDocument',
      summary: 'This OpenAPI document',
      description:
        'OpenAPI 3.1, built from the same route table and JSON Schemas that validate requests, so it cannot drift from what the server does. Feed it to a client generator or to an API tool.',
      tags: ['meta'],
      security: [],
      parameters: [],
      responses: { '200': jsonResponse('OpenAPI 3.1 document', { type: 'object' }, 'getOpenApiDocument'), ...TRANSPORT_ERRORS },
    },
  },
  '/v1/docs': {
    get: {
      operationId: 'getApiReference',
      summary: 'This document rendered as an HTML reference (Swagger UI, served by Folio itself)',
      description:
        'Every operation with its parameters, schemas and examples. Its scripts and styles come from this server (no CDN), under a strict Content-Security-Policy.',
      tags: ['meta'],
      security: [],
      parameters: [],
      responses: {
        '200': {
          description: 'HTML page',
          headers: REQUEST_ID_HEADER,
          content: { 'text/html': { schema: { type: 'string' }, example: examplesOf('getApiReference').response } },
        },
        ...TRANSPORT_ERRORS,
      },
    },
  },
  '/v1/docs/{version}/{file}': {
    get: {
      operationId: 'getApiReferenceAsset',
      summary: "A script, style sheet or icon of the HTML reference (cached for a year: the path names Swagger UI's version)",
      description: 'Loaded by the page at /v1/docs; any other version or file is 404.',
      tags: ['meta'],
      security: [],
      parameters: [
        { name: 'version', in: 'path', required: true, schema: { type: 'string' } },
        { name: 'file', in: 'path', required: true, schema: { enum: ['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png', 'start.js'] } },
      ],
      responses: {
        '200': {
          description: 'The file',
          headers: REQUEST_ID_HEADER,
          content: Object.fromEntries(
            ['text/css', 'text/javascript', 'image/png'].map((type) => [
              type,
              { schema: { type: 'string' }, example: (examplesOf('getApiReferenceAsset').response as Record<string, string>)[type] },
            ]),
          ),
        },
        ...TRANSPORT_ERRORS,
        '404': ERROR_REF,
      },
    },
  },
};

/** GET /metrics: its security follows FOLIO_METRICS_TOKEN (open without it). */
export function metricsPath(tokenRequired: boolean): Record<string, unknown> {
  return {
    get: {
      operationId: 'getMetrics',
      summary: 'Prometheus metrics, text exposition format (never on a blog host)',
      description:
        'Request counts and durations by route, publish queue depth and failures, image and webhook queues, event-loop delay and process figures. Needs the FOLIO_METRICS_TOKEN bearer token when one is configured.',
      tags: ['meta'],
      security: tokenRequired ? [{ metricsToken: [] }] : [],
      parameters: [],
      responses: {
        '200': {
          description: 'Prometheus text format 0.0.4',
          headers: REQUEST_ID_HEADER,
          content: { 'text/plain': { schema: { type: 'string' }, example: examplesOf('getMetrics').response } },
        },
        ...TRANSPORT_ERRORS,
        ...(tokenRequired ? { '401': ERROR_REF } : {}),
      },
    },
  };
}

const JSON_RPC_ID = { type: ['string', 'integer'] };

/** POST /mcp (src/http/mcpEndpoint.ts): JSON-RPC 2.0 in, JSON-RPC 2.0 out. */
export function mcpPath(): Record<string, unknown> {
  const examples = examplesOf('callMcp');
  return {
    post: {
      operationId: 'callMcp',
      summary:
        'Model Context Protocol endpoint (Streamable HTTP, stateless, JSON answers): one JSON-RPC 2.0 message per request; the tools act with this key and its scopes',
      description:
        'For AI agents: `initialize`, `tools/list` and `tools/call` with the tools of `folio mcp`. Each `tools/call` costs one request of the hourly rate limit, whatever the tool does; the other messages cost none (they are refused with 429 once the budget is spent). A tool failure is a result with `isError` carrying the API error (`error`, `message`, `details`, `required_plan`).',
      tags: ['agents'],
      security: [{ bearer: [] }],
      parameters: [],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['jsonrpc', 'method'],
              additionalProperties: false,
              properties: { jsonrpc: { const: '2.0' }, id: JSON_RPC_ID, method: { type: 'string' }, params: { type: 'object' } },
            },
            example: examples.request,
          },
        },
      },
      responses: {
        '200': {
          description: 'The JSON-RPC answer: a result, or a JSON-RPC error (a tool that failed answers a result with isError and the API error)',
          headers: { ...REQUEST_ID_HEADER, ...RATE_LIMIT_HEADERS },
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['jsonrpc'],
                properties: { jsonrpc: { const: '2.0' }, id: { type: ['string', 'integer', 'null'] }, result: { type: 'object' }, error: { type: 'object' } },
              },
              example: examples.response,
            },
          },
        },
        '202': { description: 'A notification (a message without id) was accepted; no body', headers: { ...REQUEST_ID_HEADER, ...RATE_LIMIT_HEADERS } },
        ...TRANSPORT_ERRORS,
        ...Object.fromEntries(['401', '405', '413', '415', '429', '500'].map((code) => [code, ERROR_REF])),
      },
    },
  };
}
