// TEMPORARY (not committed): serves the editor shell before the sessions core lands.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Eta } from 'eta';
import type { BrowserContext } from 'playwright-core';

const dist = join(process.cwd(), 'dist', 'dashboard');
export async function harness(context: BrowserContext, baseUrl: string, key: string): Promise<void> {
  const manifest = JSON.parse(readFileSync(join(dist, 'manifest.json'), 'utf8')) as Record<string, string>;
  const eta = new Eta({ views: join(process.cwd(), 'templates', 'dashboard') });
  await context.setExtraHTTPHeaders({ Authorization: `Bearer ${key}` });
  await context.route(`${baseUrl}/dashboard/**`, async (route) => {
    const url = new URL(route.request().url());
    if (url.pathname.startsWith('/dashboard/assets/')) {
      const file = url.pathname.slice('/dashboard/'.length);
      return route.fulfill({ body: readFileSync(join(dist, file)), contentType: file.endsWith('.js') ? 'text/javascript' : 'text/css' });
    }
    const m = /^\/dashboard\/blogs\/([^/]+)\/posts(?:\/([^/]+))?\/?$/.exec(url.pathname);
    if (!m || !m[2])
      return route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>Posts</title><main id="main"><h1>Posts</h1></main>' });
    const body = eta.render('editor', { blogId: m[1] });
    const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Editor</title><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="folio-csrf" content="x">
<link rel="stylesheet" href="/dashboard/${manifest['dashboard.css']}"><link rel="stylesheet" href="/dashboard/${manifest['editor.css']}">
<script type="module" src="/dashboard/${manifest['shell.js']}"></script><script type="module" src="/dashboard/${manifest['editor.js']}"></script></head>
<body><header class="top"><a href="/dashboard">Folio</a></header><main id="main" data-page="editor" data-blog-id="${m[1]}">${body}</main></body></html>`;
    return route.fulfill({
      status: 200,
      contentType: 'text/html',
      headers: {
        'content-security-policy':
          "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob: http://*.localhost:*; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
      },
      body: html,
    });
  });
}
