/**
 * GET /v1/docs: the API reference rendered by Swagger UI from GET /v1/openapi.json, served from
 * the `swagger-ui-dist` package installed with the app (no CDN, works offline). Swagger UI was
 * chosen over Redoc because it is two packages against Redoc's hundred-odd, a fraction of the
 * installed size, and its "Try it out" lets a reader call the API with a key from the page. Its
 * analytics dependency (@scarf/scarf) only acts in an install script, which our installs skip
 * (Dockerfile: --ignore-scripts) and package.json's `scarfSettings` turns off.
 *
 * The assets are read and compressed on first request (nothing at start-up) and cached; their
 * path carries the package version, so browsers may keep them for a year.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { NotFoundError } from '../../domain/errors.js';
import { chooseEncoding, CompressedBodies, compressible } from '../siteCompression.js';
import type { AppState } from '../state.js';

const require = createRequire(import.meta.url);

/** What the page loads from the package, and as what. */
const ASSETS = new Map([
  ['swagger-ui.css', 'text/css; charset=utf-8'],
  ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
  ['favicon-32x32.png', 'image/png'],
  ['start.js', 'text/javascript; charset=utf-8'],
]);

function packageDir(): { dir: string; version: string } {
  const manifest = require.resolve('swagger-ui-dist/package.json');
  return { dir: dirname(manifest), version: (require(manifest) as { version: string }).version };
}

/** The page: Swagger UI pointed at the document, with our start script (no inline script). */
function page(version: string): string {
  const base = `/v1/docs/${version}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Folio API reference</title>
<link rel="icon" type="image/png" href="${base}/favicon-32x32.png">
<link rel="stylesheet" href="${base}/swagger-ui.css">
</head>
<body>
<noscript>The reference needs JavaScript; the document itself is at <a href="/v1/openapi.json">/v1/openapi.json</a>.</noscript>
<div id="swagger-ui"></div>
<script src="${base}/swagger-ui-bundle.js"></script>
<script src="${base}/start.js"></script>
</body>
</html>
`;
}

const START_SCRIPT = `window.ui = SwaggerUIBundle({ url: '/v1/openapi.json', dom_id: '#swagger-ui', deepLinking: true, tryItOutEnabled: false, persistAuthorization: false });\n`;

/**
 * Swagger UI styles elements inline and draws icons from data: URLs; scripts only from here.
 * "Try it out" calls the document's server, which may be another origin (FOLIO_PUBLIC_API_URL).
 */
function securityPolicy(apiOrigin: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    `connect-src 'self' ${apiOrigin}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

export function registerDocsPage(router: Router<AppState>, options: { apiOrigin: string; named: (route: string) => Middleware<AppState> }): void {
  let pkg: { dir: string; version: string } | null = null;
  const locate = () => (pkg ??= packageDir());
  const files = new Map<string, Promise<Buffer>>();
  const compressed = new CompressedBodies();
  const policy = securityPolicy(options.apiOrigin);

  router.get('/v1/docs', options.named('/v1/docs'), (ctx) => {
    ctx.set('Content-Security-Policy', policy);
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = page(locate().version);
  });

  router.get('/v1/docs/:version/:file', options.named('/v1/docs/:version/:file'), async (ctx) => {
    const { dir, version } = locate();
    const file = ctx.params.file ?? '';
    // A Map, not an object: `hasOwnProperty` or `__proto__` must not pass for a file name.
    const type = ASSETS.get(file);
    if (ctx.params.version !== version || type === undefined) throw new NotFoundError(`no such file in the API reference: ${ctx.path}`);
    let body: Buffer;
    if (file === 'start.js') body = Buffer.from(START_SCRIPT);
    else {
      // A failed read is not cached: the next request tries again.
      let read = files.get(file);
      if (!read) {
        read = readFile(join(dir, file));
        files.set(file, read);
        read.catch(() => files.delete(file));
      }
      body = await read;
    }
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.vary('Accept-Encoding');
    ctx.type = type;
    const encoding = compressible(type, body.length) ? chooseEncoding(ctx.get('accept-encoding') || undefined) : null;
    if (encoding) {
      ctx.set('Content-Encoding', encoding);
      ctx.body = await compressed.get(`${version}/${file}`, body, encoding);
    } else ctx.body = body;
  });
}
