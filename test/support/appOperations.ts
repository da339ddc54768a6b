/**
 * The operations an app serves, read from its own Koa router and described by its OpenAPI
 * document, for suites that must cover every route, including routes added later.
 */
import type Router from '@koa/router';
import type { Folio } from '../../src/compose/compose.js';
import { toOpenApiPath } from '../../src/http/openapi/document.js';
import type { SchemaLike } from './hostileArbitraries.js';

export interface Operation {
  method: string;
  /** In @koa/router syntax, as the router holds it (`/v1/posts/:slug`). */
  path: string;
  /** `METHOD path`. */
  name: string;
  params: string[];
  /** Whether GET /v1/openapi.json describes it (else its query and body are unknown). */
  documented: boolean;
  secured: boolean;
  blogScoped: boolean;
  queryKeys: string[];
  /** Values the query schema names (enums, defaults, bounds): valid ones mixed with hostile ones. */
  queryValues: string[];
  /** A valid query string (required parameters only), for requests hostile in other parts. */
  saneQuery: string;
  body: SchemaLike | undefined;
  /** Media types of a raw upload body (POST /v1/media), when the body is not JSON. */
  upload: string[] | undefined;
  success: number;
  /** Every success status documented (POST /v1/media: 201, and 200 for an image the blog already has). */
  successes: number[];
  /** Client-error statuses the document lists for it (an open route may answer those too: GET /v1/docs/… 404). */
  clientErrors: number[];
  /** Media types of the success answer (`text/plain` for GET /metrics, CSS/JS/PNG for the docs' files, else JSON). */
  successTypes: string[];
}

interface DocParameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: { enum?: unknown[]; default?: unknown; minimum?: number; maximum?: number };
}
interface DocOperation {
  parameters?: DocParameter[];
  security?: unknown[];
  requestBody?: { content: Record<string, { schema: SchemaLike } | undefined> };
  responses?: Record<string, { content?: Record<string, unknown> }>;
}
export interface OpenApiPaths {
  paths: Record<string, Record<string, DocOperation>>;
}

export function routerOf(app: Folio['app']): Router {
  const dispatch = app.middleware.find((fn) => 'router' in fn) as unknown as { router: Router } | undefined;
  if (!dispatch) throw new Error('the app has no @koa/router');
  return dispatch.router;
}

function describeOperation(openapi: OpenApiPaths, method: string, path: string): Operation {
  const item = openapi.paths[toOpenApiPath(path)]?.[method.toLowerCase()];
  const parameters = item?.parameters ?? [];
  const query = parameters.filter((p) => p.in === 'query');
  return {
    method,
    path,
    name: `${method} ${path}`,
    params: [...path.matchAll(/:(\w+)/g)].map((m) => m[1]!),
    documented: item !== undefined,
    secured: (item?.security ?? []).length > 0,
    blogScoped: parameters.some((p) => p.in === 'header' && p.name.toLowerCase() === 'x-blog-id'),
    queryKeys: query.map((p) => p.name),
    queryValues: query.flatMap((p) =>
      [...(p.schema?.enum ?? []), p.schema?.default, p.schema?.minimum, p.schema?.maximum].filter((v) => v !== undefined).map(String),
    ),
    saneQuery: query
      .filter((p) => p.required)
      .map((p, i) => `${i === 0 ? '?' : '&'}${p.name}=${String(p.schema?.enum?.[0] ?? p.schema?.default ?? 'fixture')}`)
      .join(''),
    body: item?.requestBody?.content['application/json']?.schema,
    upload: item?.requestBody && !item.requestBody.content['application/json'] ? Object.keys(item.requestBody.content) : undefined,
    success: Number(Object.keys(item?.responses ?? {}).find((code) => /^2\d\d$/.test(code)) ?? 200),
    successes: Object.keys(item?.responses ?? { 200: {} })
      .filter((code) => /^2\d\d$/.test(code))
      .map(Number),
    clientErrors: Object.keys(item?.responses ?? {})
      .filter((code) => /^4\d\d$/.test(code))
      .map(Number),
    successTypes: Object.keys(Object.entries(item?.responses ?? {}).find(([code]) => /^2\d\d$/.test(code))?.[1].content ?? { 'application/json': {} }),
  };
}

/** Every method and path the router serves (HEAD comes with GET). */
export function appOperations(router: Router, openapi: OpenApiPaths): Operation[] {
  return router.stack.flatMap((layer) => layer.methods.filter((m) => m !== 'HEAD').map((method) => describeOperation(openapi, method, String(layer.path))));
}

/** The operation the router picks for a request target, or null (then the app answers 404). */
export function matchOperation(router: Router, operations: readonly Operation[], method: string, target: string): Operation | null {
  // The path of an absolute-form target (`GET http://host/v1/posts`), as parseurl gives it to Koa.
  const path = target.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '').split(/[?#]/)[0] ?? '';
  const layer = router.match(path, method).pathAndMethod.find((l) => l.methods.length > 0);
  if (!layer) return null;
  const wanted = method === 'HEAD' ? 'GET' : method;
  return operations.find((op) => op.path === String(layer.path) && op.method === wanted) ?? null;
}
