import Koa, { type Middleware } from 'koa';
import Router from '@koa/router';
import cors from '@koa/cors';
import type { SqlReader } from '../db/sql/sqlClient.js';
import type { BlogsRepo } from '../db/blogsRepo.js';
import { BadRequestError, MethodNotAllowedError, NotFoundError } from '../domain/errors.js';
import type { Logger } from '../lib/logger.js';
import type { ApiKeysService } from '../services/apiKeys.js';
import type { RateLimiter } from '../services/rateLimiter.js';
import { authenticate } from './middleware/authenticate.js';
import { errorHandler } from './middleware/errorHandler.js';
import { jsonBody } from './middleware/jsonBody.js';
import { requestMetrics } from './middleware/requestMetrics.js';
import { securityHeaders } from './middleware/securityHeaders.js';
import { metricsEndpoint, type MetricsSource } from './metricsEndpoint.js';
import { rateLimit } from './middleware/rateLimit.js';
import { addressRateLimit } from './middleware/addressRateLimit.js';
import type { AddressRateLimiter } from '../services/addressRateLimiter.js';
import { requireScope } from './middleware/requireScope.js';
import { resolveBlog } from './middleware/resolveBlog.js';
import { validate } from './middleware/validate.js';
import { drainOnRefusal, uploadBody } from './middleware/uploadBody.js';
import { idempotency } from './middleware/idempotency.js';
import type { IdempotencyService } from '../services/idempotency.js';
import { uploadRoute } from './bodyLimits.js';
import { buildOpenApi } from './openapi/document.js';
import { mcpEndpoint, type McpServerLoader } from './mcpEndpoint.js';
import { McpGrants } from './mcpGrants.js';
import { registerDocsPage } from './openapi/docsPage.js';
import type { RouteDef } from './routeDef.js';
import type { AppContext, AppState } from './state.js';
import { dashboardRoutes, type DashboardDeps } from './dashboard/dashboardRoutes.js';
import { registerPreviewPages, type PreviewPagesDeps } from './previewPages.js';

export interface AppDeps {
  logger: Logger;
  /** Asked by /healthz: a node that cannot reach its database is taken out of the balancer. */
  sql: SqlReader;
  keys: ApiKeysService;
  blogs: BlogsRepo;
  /** null when FOLIO_RATE_LIMITS=off. */
  rateLimiter: RateLimiter | null;
  /** The per-address budget of routes marked `rateLimit: 'address'` (no key to count by). */
  addressLimiter: AddressRateLimiter;
  /** Proxies whose X-Forwarded-For names the client (FOLIO_TRUST_PROXY; 0: the socket's address). */
  trustProxyHops?: number;
  routes: RouteDef[];
  /** Idempotency-Key on authenticated POST routes. */
  idempotency: IdempotencyService;
  /** Answers requests for published sites by Host; calls next() for everything else. */
  siteServer?: Middleware<AppState>;
  /** Base URL of the API as users reach it, for the OpenAPI document. */
  apiBaseUrl: string;
  /** Request observations and GET /metrics (FOLIO_METRICS_TOKEN: `metricsToken`, null = open). */
  metrics: MetricsSource & { observeRequest(method: string, route: string, status: number, seconds: number): void };
  metricsToken: string | null;
  /** Browser origins allowed to call the API (FOLIO_CORS_ORIGINS): none, a list, or `*`. */
  corsOrigins?: readonly string[];
  /** GET /preview/<token> and its theme assets (previewPages.ts); absent: no preview pages. */
  previewPages?: PreviewPagesDeps;
  /** The MCP server behind POST /mcp, loaded on its first request (src/http/mcpEndpoint.ts). */
  mcpServer: McpServerLoader;
  /** People's sign-in (the folio_session cookie on /v1) and the dashboard's pages under /dashboard. */
  dashboard: Omit<DashboardDeps, 'publicOrigin' | 'trustProxyHops'>;
}

/** Builds the Koa app; never listens (tests use app.callback()). */
export function createApp(deps: AppDeps): Koa<AppState> {
  const app = new Koa<AppState>();
  app.proxy = false;
  // Errors are answered by errorHandler; Koa's default handler would print stacks to stderr.
  app.silent = true;

  const router = new Router<AppState>();
  const named =
    (route: string): Middleware<AppState> =>
    (ctx, next) => {
      ctx.state.route = route;
      return next();
    };
  router.get('/healthz', named('/healthz'), async (ctx) => {
    await deps.sql.get('SELECT 1');
    ctx.body = { status: 'ok' };
  });
  // Built on first request, not with the app: a cold start only loads what the first answer needs.
  let openapi: ReturnType<typeof buildOpenApi> | undefined;
  router.get('/v1/openapi.json', named('/v1/openapi.json'), (ctx) => {
    ctx.body = openapi ??= buildOpenApi(deps.routes, deps.apiBaseUrl, { metricsToken: deps.metricsToken !== null });
  });
  registerDocsPage(router, { apiOrigin: new URL(deps.apiBaseUrl).origin, named });
  // Outside /v1 and not under any blog's host: the site server answers those hosts first.
  router.get('/metrics', named('/metrics'), metricsEndpoint(deps.metrics, deps.metricsToken));
  if (deps.previewPages) registerPreviewPages(router, deps.previewPages, named);

  const publicOrigin = new URL(deps.apiBaseUrl).origin;
  // /v1 takes a key or a dashboard session; POST /mcp, for agents, takes keys only.
  const auth = authenticate(deps.keys, { sessions: deps.dashboard.sessions, publicOrigin });
  const keyAuth = authenticate(deps.keys);
  const grants = new McpGrants();
  const limit = rateLimit(deps.rateLimiter, { grants });
  // The MCP server for hosted agents: any valid key; each tool's API call checks its scopes.
  // A tools/call costs one request, its API calls none (mcpGrants.ts); the protocol's other
  // messages cost none but are refused like any request once the budget is spent.
  const toolCalls = rateLimit(deps.rateLimiter, { cost: (ctx) => ((ctx.request.body as { method?: unknown } | undefined)?.method === 'tools/call' ? 1 : 0) });
  router.post('/mcp', named('/mcp'), keyAuth, toolCalls, mcpEndpoint(grants, deps.mcpServer));
  const perAddress = addressRateLimit(deps.addressLimiter, deps.trustProxyHops ?? 0);
  const blog = resolveBlog(deps.blogs);
  for (const route of deps.routes) {
    const chain: Middleware<AppState>[] = [named(`/v1${route.path}`)];
    const upload = route.upload ? uploadRoute(route.method, `/v1${route.path}`) : null;
    if (route.upload && !upload) throw new Error(`upload route ${route.method} /v1${route.path} has no body limit in bodyLimits.ts`);
    if (upload) chain.push(drainOnRefusal);
    if (route.scope) chain.push(auth, limit, requireScope(route.scope));
    if (route.rateLimit === 'address') chain.push(route.addressLimiter ? addressRateLimit(route.addressLimiter) : perAddress);
    if (route.blogScoped) chain.push(blog);
    if (route.query) chain.push(validate('query', route.query));
    if (upload) chain.push(uploadBody(upload));
    else if (route.body) chain.push(validate('body', route.body));
    else chain.push(rejectBody);
    if (route.method === 'POST' && route.scope) chain.push(idempotency(deps.idempotency, deps.logger, route.secret));
    chain.push(async (ctx) => {
      ctx.status = route.status;
      await route.handler(ctx as AppContext);
    });
    router.register(`/v1${route.path}`, [route.method], chain);
  }

  app.use(requestMetrics((method, route, status, seconds) => deps.metrics.observeRequest(method, route, status, seconds), routeOf(router)));
  app.use(errorHandler(deps.logger));
  if (deps.siteServer) app.use(deps.siteServer);
  // After the site server: published pages carry the site's own headers.
  app.use(securityHeaders);
  // Before CORS and jsonBody: the dashboard is same-origin only, and its forms are urlencoded.
  app.use(dashboardRoutes({ ...deps.dashboard, publicOrigin, trustProxyHops: deps.trustProxyHops ?? 0 }, named));
  const corsOrigins = deps.corsOrigins ?? [];
  if (corsOrigins.length > 0) {
    // After the site server: blog hosts never answer for the API. A preflight from an allowed
    // origin is answered here (204); other origins get no CORS headers, so browsers refuse them.
    const allowOrigins = cors({
      origin: (ctx) => (corsOrigins.includes('*') ? '*' : corsOrigins.includes(ctx.get('origin')) ? ctx.get('origin') : ''),
      allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'],
      allowHeaders: ['Authorization', 'Content-Type', 'X-Blog-Id', 'Idempotency-Key', 'If-Match', 'X-Request-Id'],
      exposeHeaders: ['ETag', 'X-Request-Id', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After', 'Idempotent-Replayed'],
      maxAge: 600,
      keepHeadersOnError: true,
    });
    // /metrics is for the operator's scraper, never for a page in a browser.
    app.use((ctx, next) => (ctx.path === '/metrics' ? next() : allowOrigins(ctx, next)));
  }
  app.use(jsonBody);
  app.use(router.routes());
  app.use(async (ctx) => {
    // The MCP endpoint is stateless: no event stream to GET, no session to DELETE (the protocol wants 405).
    if (ctx.path === '/mcp') throw new MethodNotAllowedError('this MCP endpoint is stateless: send JSON-RPC requests with POST', ['POST']);
    throw new NotFoundError(`no route for ${ctx.method} ${ctx.path}`);
  });
  return app;
}

/**
 * The pattern of the route a request would have reached, for requests answered before their
 * route ran (a body jsonBody refused); `unmatched` for paths no route serves.
 */
function routeOf(router: Router<AppState>): (method: string, path: string) => string {
  return (method, path) => {
    const match = router.match(path, method);
    const layer = match.pathAndMethod.find((l) => l.methods.length > 0) ?? match.path.find((l) => l.methods.length > 0);
    return typeof layer?.path === 'string' ? layer.path : 'unmatched';
  };
}

/** Routes without a body schema take no body; a stray one is ignored only when empty. */
const rejectBody: Middleware<AppState> = async (ctx, next) => {
  const body = ctx.request.body as unknown;
  if (body !== undefined && !(typeof body === 'object' && body !== null && Object.keys(body).length === 0)) {
    throw new BadRequestError('this operation takes no request body');
  }
  return next();
};
