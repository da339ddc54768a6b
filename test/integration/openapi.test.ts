import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenApiContract } from '../support/openApiContract.js';
import type Router from '@koa/router';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { expectNoLeak } from '../support/factories.js';

let t: TestApp;
let doc: any;
beforeAll(async () => {
  t = await startTestApp();
  const res = await t.request('GET', '/v1/openapi.json', { key: null });
  expect(res.status).toBe(200);
  doc = res.body;
});
afterAll(async () => t.close());

/** `METHOD /path/{param}` for every route the app's Koa router serves (HEAD is implied by GET). */
function routerOperations(): string[] {
  const dispatch = t.folio.app.middleware.find((fn) => 'router' in fn) as unknown as { router: Router } | undefined;
  if (!dispatch) throw new Error('no router in the app');
  return dispatch.router.stack
    .flatMap((layer) => layer.methods.filter((m) => m !== 'HEAD').map((m) => `${m} ${String(layer.path).replace(/:(\w+)/g, '{$1}')}`))
    .sort();
}

/** `METHOD /path` for every operation of the document, resolved against its server URL. */
function documentOperations(): string[] {
  const base = new URL(doc.servers[0].url).pathname.replace(/\/$/, '');
  return Object.entries(doc.paths as Record<string, Record<string, unknown>>)
    .flatMap(([path, item]) =>
      Object.keys(item)
        .filter((key) => ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'].includes(key))
        .map((method) => `${method.toUpperCase()} ${base}${path}`),
    )
    .sort();
}

function resolveRef(ref: string): unknown {
  expect(ref.startsWith('#/')).toBe(true);
  return ref
    .slice(2)
    .split('/')
    .reduce<any>((node, part) => (node === undefined ? undefined : node[part]), doc);
}

describe('GET /healthz', () => {
  it('answers {"status":"ok"} without authentication', async () => {
    const res = await t.request('GET', '/healthz', { key: null });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
    expect(res.text).toBe('{"status":"ok"}');
    expectNoLeak(res);
  });
});

describe('GET /v1/openapi.json', () => {
  it('is an OpenAPI 3.1 document served without authentication', () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(typeof doc.info.title).toBe('string');
    expect(typeof doc.info.version).toBe('string');
    expect(Array.isArray(doc.servers)).toBe(true);
    expect(() => new URL(doc.servers[0].url)).not.toThrow();
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('describes exactly the routes the Koa router serves, at the addresses they are served on', () => {
    const served = routerOperations();
    expect(served.length).toBeGreaterThanOrEqual(22);
    expect(documentOperations()).toEqual(served);
  });

  it('leads a client to real routes: every documented operation answers something other than a route 404', async () => {
    const base = doc.servers[0].url.replace(/\/$/, '');
    const origin = new URL(base).origin;
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
      for (const method of Object.keys(item).filter((k) => ['get', 'put', 'post', 'delete'].includes(k))) {
        // The document's server names the configured port; ask this test server instead.
        const url = `${base}${path.replace(/\{\w+\}/g, 'x')}`.replace(origin, '');
        const res = await t.request(method.toUpperCase(), url, { key: null });
        expect(res.body?.message ?? '', `${method} ${url}`).not.toMatch(/^no route for/);
      }
    }
  });

  it('marks authenticated operations with bearer security and their scope, and the open ones with none', () => {
    for (const item of Object.values(doc.paths as Record<string, Record<string, any>>)) {
      for (const op of Object.values(item)) {
        if (op.tags[0] === 'meta' || op.tags[0] === 'tls' || op.tags[0] === 'discover' || op.tags[0] === 'previews') {
          // The TLS terminator's ask (GET /v1/tls/allowed) and discovery (GET /v1/discover) have no key: they are limited per address instead.
          expect(op.security).toEqual([]);
        } else if (op.tags[0] === 'agents') {
          // POST /mcp takes any valid key; each tool's API call checks that call's scope.
          expect(op.security).toEqual([{ bearer: [] }]);
          expect(op['x-scope']).toBeUndefined();
        } else {
          expect(op.security).toEqual([{ bearer: [op['x-scope']] }]);
          expect(op['x-scope']).toMatch(/^[a-z]+:[a-z]+$/);
        }
      }
    }
  });

  it('is what every answer of the integration suite is checked against, and that check catches drift', () => {
    const contract = new OpenApiContract(doc);
    const json = (extra: Record<string, string> = {}) => new Headers({ 'content-type': 'application/json', 'x-request-id': 'r1', etag: '"v1"', ...extra });
    const post = {
      id: 'p',
      blog_id: 'b',
      title: 't',
      slug: 's',
      content_md: '',
      content_html: '',
      meta_description: '',
      og_image_url: null,
      tags: [],
      status: 'draft',
      published_at: null,
      scheduled_at: null,
      aliases: [],
      created_at: 'x',
      updated_at: 'x',
    };
    expect(() => contract.check('GET', '/v1/posts/s', 200, json(), post)).not.toThrow();
    const { title: _title, ...withoutTitle } = post;
    expect(() => contract.check('GET', '/v1/posts/s', 200, json(), withoutTitle)).toThrow(/required property 'title'/);
    expect(() => contract.check('GET', '/v1/posts/s', 418, json(), post)).toThrow(/does not list/);
    expect(() => contract.check('DELETE', '/v1/posts/s', 404, json(), { error: 'not_found' })).toThrow(/required property 'message'/);
    // Headers: the ETag of a read and the request id are required; rate-limit headers are integers.
    expect(() => contract.check('GET', '/v1/posts/s', 200, new Headers({ 'content-type': 'application/json', 'x-request-id': 'r1' }), post)).toThrow(
      /no ETag header/,
    );
    expect(() =>
      contract.check('DELETE', '/v1/posts/s', 404, new Headers({ 'content-type': 'application/json' }), { error: 'not_found', message: 'm' }),
    ).toThrow(/no X-Request-Id header/);
    expect(() => contract.check('GET', '/v1/posts/s', 200, json({ 'x-ratelimit-remaining': 'many' }), post)).toThrow(
      /X-RateLimit-Remaining: many is not an integer/,
    );
  });

  it('has an example for every request body and success answer, and one for errors', () => {
    let operations = 0;
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(item)) {
        operations++;
        const where = `${method} ${path}`;
        const json = op.requestBody?.content?.['application/json'];
        if (json) expect(json.example, `${where} request`).toBeDefined();
        for (const [code, response] of Object.entries(op.responses as Record<string, any>)) {
          if (!code.startsWith('2')) continue;
          // 202 of POST /mcp: a notification accepted, answered without a body.
          if (code === '202' && path === '/mcp') {
            expect(response.content, `${where} ${code}`).toBeUndefined();
            continue;
          }
          // 204: answered without a body (DELETE /v1/posts/{slug}/preview-link).
          if (code === '204') {
            expect(response.content, `${where} ${code}`).toBeUndefined();
            continue;
          }
          const media = Object.values(response.content ?? {}) as { example?: unknown }[];
          expect(media.length, `${where} ${code}`).toBeGreaterThan(0);
          for (const m of media) expect(m.example, `${where} ${code} example`).toBeDefined();
        }
      }
    }
    expect(operations).toBeGreaterThanOrEqual(36);
    expect(doc.components.responses.ApiError.content['application/json'].example).toMatchObject({ error: expect.any(String), message: expect.any(String) });
  });

  it('declares no body for publish and unpublish, which take none (an empty JSON object is still accepted)', async () => {
    for (const action of ['publish', 'unpublish']) expect(doc.paths[`/v1/posts/{slug}/${action}`].post.requestBody, action).toBeUndefined();
    expect(doc.paths['/v1/posts'].post.requestBody.required).toBe(true);
    const blog = (await t.request('POST', '/v1/blogs', { body: { slug: 'no-body', name: 'No body' } })).body;
    const slug = (await t.request('POST', '/v1/posts', { blogId: blog.id, body: { title: 'Bodiless', content: 'x' } })).body.slug;
    expect((await t.request('POST', `/v1/posts/${slug}/publish`, { blogId: blog.id })).status).toBe(200);
    expect((await t.request('POST', `/v1/posts/${slug}/unpublish`, { blogId: blog.id, body: {} })).status).toBe(200);
    expect((await t.request('POST', `/v1/posts/${slug}/publish`, { blogId: blog.id, body: { at: 'now' } })).status).toBe(400);
  });

  it('describes upload bodies as binary strings, answers with enums, and names the error schema ApiError with required details', () => {
    const upload = doc.paths['/v1/media'].post.requestBody.content;
    expect(Object.keys(upload).sort()).toEqual(['image/avif', 'image/gif', 'image/jpeg', 'image/png', 'image/webp']);
    for (const media of Object.values(upload)) expect(media).toMatchObject({ schema: { type: 'string', format: 'binary' } });
    expect(doc.paths['/v1/posts'].post.responses['201'].content['application/json'].schema.properties.status).toEqual({ enum: ['draft', 'published'] });
    expect(doc.paths['/v1/posts/{slug}/publish'].post.responses['200'].content['application/json'].schema.properties.status).toEqual({ const: 'published' });
    expect(doc.components.schemas.Error).toBeUndefined();
    expect(doc.components.schemas.ApiError.properties.details.items.required).toEqual(['field', 'message']);
    expect(doc.paths['/v1/media'].get.responses['200'].content['application/json'].schema.required).toEqual(['data', 'pagination']);
  });

  it('declares the 417 every request can get for an Expect header other than 100-continue', async () => {
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(item)) expect(op.responses['417'], `${method} ${path}`).toEqual({ $ref: '#/components/responses/ApiError' });
    }
    // A real one, checked against the document as every answer of the suite is.
    const server = new URL(t.baseUrl);
    const answer = await new Promise<{ status: number; headers: Headers; body: unknown }>((resolve, reject) => {
      request(
        {
          hostname: server.hostname,
          port: server.port,
          path: '/v1/posts',
          method: 'POST',
          headers: { expect: 'teapot', authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: new Headers(res.headers as Record<string, string>), body: JSON.parse(text) }));
        },
      )
        .on('error', reject)
        .end('{}');
    });
    expect(answer.status).toBe(417);
    expect(() => new OpenApiContract(doc).check('POST', '/v1/posts', answer.status, answer.headers, answer.body)).not.toThrow();
  });

  it('names every operation with a unique operationId and documents the request id header', () => {
    const ids: string[] = [];
    for (const item of Object.values(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(item)) {
        expect(op.operationId, method).toMatch(/^[a-z][A-Za-z]+$/);
        ids.push(op.operationId);
        const success = Object.entries(op.responses).find(([code]) => code.startsWith('2'))![1] as any;
        expect(success.headers['X-Request-Id'], op.operationId).toBeDefined();
      }
    }
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('declares every path parameter, answers 201 for creations, 204 for answers without a body and 200 otherwise, and documents errors', () => {
    const creations = [
      'post /v1/posts',
      'post /v1/blogs',
      'post /v1/blogs/{id}/api-keys',
      'post /v1/account/api-keys',
      'post /v1/blogs/{id}/domain',
      'post /v1/blogs/{id}/webhooks',
      'post /v1/media',
      'post /v1/posts/{slug}/preview-link',
    ];
    const noContent = ['delete /v1/posts/{slug}/preview-link'];
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(item)) {
        const params = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
        const declared = (op.parameters ?? []).filter((p: any) => p.in === 'path').map((p: any) => p.name);
        expect(declared.sort(), `${method} ${path}`).toEqual(params.sort());
        const success = creations.some((c) => `${method} ${path}`.endsWith(c)) ? '201' : noContent.includes(`${method} ${path}`) ? '204' : '200';
        expect(Object.keys(op.responses), `${method} ${path}`).toContain(success);
        if (op.security?.length) expect(op.responses['401'].$ref).toBe('#/components/responses/ApiError');
      }
    }
  });

  it('documents the limits of the request bodies and queries', () => {
    const createPost = doc.paths['/v1/posts'].post.requestBody.content['application/json'].schema;
    expect(createPost.required).toEqual(['title', 'content']);
    expect(createPost.properties.tags.maxItems).toBe(10);
    expect(createPost.properties.tags.items.maxLength).toBe(50);
    const perPage = doc.paths['/v1/posts'].get.parameters.find((p: any) => p.name === 'per_page');
    expect(perPage.schema.maximum).toBe(100);
    const q = doc.paths['/v1/search'].get.parameters.find((p: any) => p.name === 'q');
    expect(q).toMatchObject({ in: 'query', required: true, schema: { maxLength: 100 } });
  });

  it('has only $refs that resolve inside the document', () => {
    const refs: string[] = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === 'object') {
        for (const [key, value] of Object.entries(node)) {
          if (key === '$ref' && typeof value === 'string') refs.push(value);
          else walk(value);
        }
      }
    };
    walk(doc);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of new Set(refs)) expect(resolveRef(ref), ref).toBeDefined();
  });
});
