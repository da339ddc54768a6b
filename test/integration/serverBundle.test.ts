/**
 * The server `npm start` runs is a bundle (dist/server/main.js, scripts/bundleServer.mjs) made
 * from the modules tsc emits (dist/src), which the CLI and the worker threads keep running. What
 * a bundle could break, checked on the real processes: finding the worker threads (they are no
 * longer beside the calling module), rendering and serving a page, the lazily loaded parts
 * (prom-client, the JSON body parser, the OpenAPI document), and the render fingerprint: if the
 * bundle and the unbundled build disagreed on it, each start of one after the other would
 * re-render every blog.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { visit } from '../../bench/harness/visit.js';
import { spawnServer, UNBUNDLED_MAIN_JS, type SpawnedServer } from '../support/spawnedServer.js';

const started: SpawnedServer[] = [];
afterAll(async () => {
  for (const server of started) await server.cleanup();
});

const waitUntil = async (check: () => Promise<boolean>, ms: number, what: string): Promise<void> => {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

const sample = (metrics: string, name: string): number => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)?.[1]);

describe('the bundled server', () => {
  it('starts its workers, renders and serves a post, and agrees with the unbundled build on the render fingerprint', async () => {
    const bundled = await spawnServer();
    started.push(bundled);
    const api = (method: string, path: string, body?: unknown, blogId?: string) =>
      fetch(`${bundled.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${bundled.apiKey}`, 'content-type': 'application/json', ...(blogId ? { 'x-blog-id': blogId } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
    const blog = (await (await api('POST', '/v1/blogs', { slug: 'bundled', name: 'Bundled' })).json()) as { id: string };
    const post = await api(
      'POST',
      '/v1/posts',
      { title: 'From the bundle', content: '# Heading\n\n```js\nconst answer = 42;\n```\n', status: 'published' },
      blog.id,
    );
    expect(post.status).toBe(201);
    await waitUntil(
      async () => ((await (await api('GET', `/v1/blogs/${blog.id}/publishing`)).json()) as { pending: number }).pending === 0,
      20_000,
      'the publish did not finish',
    );
    const page = await visit(bundled.baseUrl, `bundled.localhost:${bundled.port}`, '/from-the-bundle');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<h1');
    expect(page.text).toContain('answer');

    // The warm-up starts the heavy-work pool's threads from dist/src once the server is idle
    // (none, ever, would mean no worker script was found).
    let metrics = '';
    await waitUntil(
      async () => sample((metrics = await (await fetch(`${bundled.baseUrl}/metrics`)).text()), 'folio_heavy_workers') > 0,
      10_000,
      'no heavy worker started',
    );
    expect(metrics).toMatch(/^folio_http_requests_total\{method="POST",route="\/v1\/posts",status="201"\} 1$/m);
    const openapi = (await (await fetch(`${bundled.baseUrl}/v1/openapi.json`)).json()) as { openapi: string };
    expect(openapi.openapi).toMatch(/^3\./);
    // A malformed body still gets the JSON parser's clear 400.
    const malformed = await fetch(`${bundled.baseUrl}/v1/posts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bundled.apiKey}`, 'content-type': 'application/json', 'x-blog-id': blog.id },
      body: '{"title":',
    });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { error: string }).error).toBe('bad_request');
    bundled.child.kill('SIGTERM');
    expect((await bundled.exited).code).toBe(0);

    // The same data dir under the unbundled build: nothing to re-render, the pages stay.
    const unbundled = await spawnServer({ FOLIO_DATA_DIR: bundled.dataDir }, UNBUNDLED_MAIN_JS);
    started.push(unbundled);
    await unbundled.waitForLine((line) => line.json?.msg === 'folio listening', 10_000);
    expect((await visit(unbundled.baseUrl, `bundled.localhost:${unbundled.port}`, '/from-the-bundle')).status).toBe(200);
    unbundled.child.kill('SIGTERM');
    await unbundled.exited;
    expect(unbundled.lines.filter((line) => /re-render/.test(line.text)).map((line) => line.text)).toEqual([]);
  });
});
