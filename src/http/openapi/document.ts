import type { RouteDef } from '../routeDef.js';
import { MAX_BODY_BYTES, UPLOAD_ROUTES } from '../bodyLimits.js';
import { ERROR_EXAMPLE } from './examples.js';
import { publicSchema as clean } from './publicSchema.js';
import { builtInPaths, mcpPath, metricsPath } from './builtInPaths.js';
import { previewPaths } from './previewPaths.js';
import { ERROR_REF, examplesOf, HEADER_COMPONENTS, RATE_LIMIT_HEADERS, REQUEST_ID_HEADER, TRANSPORT_ERRORS } from './responseParts.js';

/**
 * The body of every error. Named `ApiError`, not `Error`: generated TypeScript clients declare a
 * type per schema, and one named `Error` shadows the global.
 */
const errorSchema = {
  type: 'object',
  description: 'Every error answer: a stable code and a sentence for people, with the fields at fault and the plan needed where they apply',
  required: ['error', 'message'],
  properties: {
    error: {
      enum: [
        'bad_request',
        'unauthorized',
        'forbidden',
        'not_found',
        'method_not_allowed',
        'conflict',
        'payload_too_large',
        'unsupported_media_type',
        'rate_limit_exceeded',
        'idempotency_key_reused',
        'precondition_failed',
        'internal_error',
        'headers_too_large',
        'expectation_failed',
        'service_unavailable',
        'insufficient_storage',
      ],
    },
    message: { type: 'string', description: 'What went wrong and what to do, in a sentence' },
    details: {
      type: 'array',
      description: 'Validation errors: one entry per field at fault',
      items: {
        type: 'object',
        required: ['field', 'message'],
        properties: { field: { type: 'string', description: 'Path of the field in the request (`meta.og_image`, `tags[2]`)' }, message: { type: 'string' } },
      },
    },
    required_plan: { type: 'string', description: 'The lowest plan that allows what was refused (403 of a plan-gated feature)' },
    retry_after: { type: 'integer', description: 'Seconds to wait before retrying (429, 503), as in the Retry-After header' },
  },
};

/** `/posts/:slug` → `/posts/{slug}`. */
export function toOpenApiPath(path: string): string {
  return path.replace(/:(\w+)/g, '{$1}');
}

/** Operation groups, in the order the reference at /v1/docs lists them. */
const TAGS: Record<string, string> = {
  posts: "Markdown posts of a blog: write, publish, schedule, unpublish. The blog comes from X-Blog-Id or the key's bound blog.",
  search: "Full-text search over a blog's published posts (Korean-aware segmentation).",
  analytics: "Views, daily visitors and referrers of a blog's published pages, counted without cookies or scripts.",
  media: 'Images uploaded to a blog: re-encoded without metadata, with responsive AVIF/WebP/original variants for srcset.',
  blogs: 'Blogs of the account: settings, theme, publishing status.',
  domains: 'A custom hostname for a blog, proven with a DNS TXT record.',
  webhooks: 'Signed (Standard Webhooks) notifications when posts go live or change, with delivery history.',
  'api-keys': 'Keys bound to one blog.',
  account: 'Account-wide keys and the export of every blog.',
  meta: 'Health, metrics and this document.',
  agents: 'The Model Context Protocol server for AI agents: the API as MCP tools (README, "Agents and the command line").',
  discover: 'Public search across the blogs whose owners opted in to discovery: no key, limited per client address.',
  previews: "Preview links' pages on the API host: a post as it is now (a draft too) for whoever holds the secret URL; no key, limited per client address.",
  tls: 'For the TLS terminator in front of Folio (deploy/caddy/Caddyfile): which hosts may get a certificate.',
};

/**
 * OpenAPI 3.1 from the same route table and JSON Schemas that validate requests. Paths are written
 * in full (`/v1/posts`, `/healthz`), so the server entry is the origin of `apiBaseUrl` alone;
 * with the `/v1` base URL there, clients would call `/v1/v1/posts`.
 */
export function buildOpenApi(routes: RouteDef[], apiBaseUrl: string, options: { metricsToken: boolean } = { metricsToken: false }): Record<string, unknown> {
  const serverUrl = apiBaseUrl.replace(/\/v1\/?$/, '');
  const paths: Record<string, Record<string, unknown>> = { ...builtInPaths, ...previewPaths, '/metrics': metricsPath(options.metricsToken), '/mcp': mcpPath() };
  for (const route of routes) {
    const path = `/v1${toOpenApiPath(route.path)}`;
    const parameters: unknown[] = [...route.path.matchAll(/:(\w+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    if (route.blogScoped) {
      parameters.push({
        name: 'X-Blog-Id',
        in: 'header',
        required: false,
        schema: { type: 'string' },
        description: "Blog to act on; defaults to the key's bound blog",
      });
    }
    const query = route.query as { properties?: Record<string, unknown>; required?: string[] } | undefined;
    for (const [name, schema] of Object.entries(query?.properties ?? {})) {
      parameters.push({ name, in: 'query', required: query?.required?.includes(name) ?? false, schema: clean(schema) });
    }
    if (route.method === 'POST' && route.scope) {
      parameters.push({
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
        description:
          'Makes a retry safe: the same key with the same request within 24 hours answers the first success again (with Idempotent-Replayed: true) without doing the work twice; the same key with another request is 422 idempotency_key_reused',
      });
    }
    if (route.etag === 'write') {
      parameters.push({
        name: 'If-Match',
        in: 'header',
        required: false,
        schema: { type: 'string' },
        description:
          'The ETag of the version you read (GET); the write happens only if it still matches, else 412 precondition_failed and nothing changes. `*` matches any existing version',
      });
    }
    // 503 (with Retry-After) while the store or the database lock is unavailable.
    // 500 `internal_error`: anything unexpected, on every operation.
    const errors = route.scope ? ['400', '401', '403', '404', '409', '429', '500', '503'] : ['400', '404', '429', '500', '503'];
    // 507 `insufficient_storage`: the server's disk is full; nothing was written.
    if (route.method !== 'GET') errors.push('507');
    if (route.etag === 'write') errors.push('412');
    if (route.method === 'POST' && route.scope) errors.push('422');
    if (route.body || route.upload) errors.push('413', '415');
    const examples = examplesOf(route.operationId);
    if (!(route.tag in TAGS)) throw new Error(`route ${route.operationId}: tag ${route.tag} has no description in TAGS`);
    // Spectral's operation-description (test/integration/openApiLint.test.ts).
    if (!route.description.trim()) throw new Error(`route ${route.operationId} has no description`);
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = {
      operationId: route.operationId,
      summary: route.summary,
      description: route.description,
      tags: [route.tag],
      ...(route.scope ? { security: [{ bearer: [route.scope] }], 'x-scope': route.scope } : { security: [] }),
      parameters,
      ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: clean(route.body), example: examples.request } } } } : {}),
      // Raw bytes. `format: binary` is what generators understand (a Blob or File parameter sent
      // as is); an empty schema makes some of them send `{}` or drop the body.
      ...(route.upload
        ? {
            requestBody: {
              required: true,
              description: route.upload.description,
              content: Object.fromEntries(route.upload.contentTypes.map((type) => [type, { schema: { type: 'string', format: 'binary' } }])),
            },
          }
        : {}),
      responses: {
        [String(route.status)]: {
          description: 'Success',
          headers: {
            ...REQUEST_ID_HEADER,
            ...(route.scope || route.rateLimit ? RATE_LIMIT_HEADERS : {}),
            ...(route.method === 'POST' && route.scope ? { 'Idempotent-Replayed': { $ref: '#/components/headers/Idempotent-Replayed' } } : {}),
            ...(route.etag && route.method !== 'DELETE'
              ? { ETag: { description: 'Version of the resource as read, for If-Match', required: true, schema: { type: 'string' } } }
              : {}),
          },
          // 204: no body, so nothing to describe (or to give an example of).
          ...(route.status === 204
            ? {}
            : { content: { 'application/json': { schema: clean(route.response ?? { type: 'object' }, true), example: examples.response } } }),
        },
        // An upload of bytes the blog already has answers with that image.
        ...(route.upload && route.status === 201
          ? {
              '200': {
                description: 'The blog already had this exact image',
                headers: { ...REQUEST_ID_HEADER, ...RATE_LIMIT_HEADERS },
                content: { 'application/json': { schema: clean(route.response ?? { type: 'object' }, true), example: examples.response } },
              },
            }
          : {}),
        ...TRANSPORT_ERRORS,
        ...Object.fromEntries(errors.map((code) => [code, ERROR_REF])),
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Folio API',
      version: '1.0.0',
      license: { name: 'MIT', identifier: 'MIT' },
      // The install's own reference page: whoever runs this Folio answers for it.
      contact: { name: 'Folio API reference', url: `${serverUrl}/v1/docs` },
      description: `Blog publishing API. Request bodies are JSON, at most ${MAX_BODY_BYTES} bytes, except uploads (${UPLOAD_ROUTES.map((r) => `${r.method} ${r.path}: ${r.limitText}`).join('; ')}). Every error is {error, message}.`,
    },
    servers: [{ url: serverUrl }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'pk_live_ API key. Each operation lists the scope it needs (OpenAPI 3.1 role names); a key with `*` has them all, one with `posts:*` every posts scope (and so for each resource). A missing, unknown or revoked key, or one past its `expires_at`, answers 401 unauthorized ("this API key expired at …" for the last)',
        },
        ...(options.metricsToken ? { metricsToken: { type: 'http', scheme: 'bearer', description: 'FOLIO_METRICS_TOKEN (GET /metrics only)' } } : {}),
      },
      schemas: { ApiError: errorSchema },
      headers: HEADER_COMPONENTS,
      responses: {
        ApiError: {
          description: 'Error',
          headers: REQUEST_ID_HEADER,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/ApiError' }, example: ERROR_EXAMPLE } },
        },
      },
    },
    paths,
  };
}
