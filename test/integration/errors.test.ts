import { Agent, request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestResponse } from '../support/testApp.js';
import { actorFor, buildBlog, buildPost, createKey, expectError, expectFieldError, expectNoLeak, postPath, type BuiltBlog } from '../support/factories.js';

const MB2 = 2 * 1024 * 1024;

let t: TestApp;
let blog: BuiltBlog;
beforeAll(async () => {
  t = await startTestApp();
  blog = await buildBlog(t, { actor: actorFor(t, t.key, t.accountId, 'enterprise') });
  await buildPost(blog, { title: 'x', slug: 'existing' });
});
afterAll(async () => t.close());

/** A raw HTTP request with full control over headers and chunking (fetch adds its own). */
function rawRequest(
  t: TestApp,
  method: string,
  path: string,
  headers: Record<string, string>,
  chunks: (string | Buffer)[],
  agent: Agent | false = false,
): Promise<TestResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${t.baseUrl}${path}`, { method, headers, agent }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (chunk: Buffer) => parts.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // keep text
        }
        const h = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') h.set(name, value);
        resolve({ status: res.statusCode ?? 0, headers: h, body, text });
      });
    });
    // The server may answer (413) and close before the whole body is written.
    req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'EPIPE' || err.code === 'ECONNRESET' ? undefined : reject(err)));
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

describe('400 bad_request', () => {
  it('answers malformed JSON with 400', async () => {
    for (const raw of ['{', '{"title": "x",}', "{'title': 'x'}", 'nul', '{"a":1}{"b":2}', '\u0000']) {
      const res = await t.request('POST', '/v1/posts', { blogId: blog.id, raw, headers: { 'content-type': 'application/json' } });
      expectError(res, 400, 'bad_request');
      expect(res.body.message).toMatch(/JSON/);
    }
  });

  it('answers a JSON body that is not an object with 400', async () => {
    for (const raw of ['[]', '[{"title":"x","content":"y"}]', '"text"', '42', 'true', 'null']) {
      const res = await t.request('POST', '/v1/posts', { blogId: blog.id, raw, headers: { 'content-type': 'application/json' } });
      expectError(res, 400, 'bad_request');
    }
  });

  it('answers a field of the wrong type with 400 and details naming it', async () => {
    const res = await t.request('POST', '/v1/posts', { blogId: blog.id, body: { title: 5, content: ['x'], tags: 'a', meta: 'm' } });
    expectError(res, 400, 'bad_request');
    expect(res.body.details.map((d: { field: string }) => d.field).sort()).toEqual(['content', 'meta', 'tags', 'title']);
  });

  it('names nested fields like tags[3] and meta.description', async () => {
    const res = await t.request('POST', '/v1/posts', {
      blogId: blog.id,
      body: { title: 'x', content: 'y', tags: ['a', 'b', 'c', 7], meta: { description: 12 } },
    });
    expectFieldError(res, 'tags[3]');
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain('meta.description');
    expect(res.body.message).toMatch(/tags\[3\]|meta\.description/);
  });

  it('answers a body sent to an operation that takes none with 400', async () => {
    expectError(await t.request('DELETE', postPath('existing'), { blogId: blog.id, body: { force: true } }), 400, 'bad_request');
    expect((await t.request('GET', postPath('existing'), { blogId: blog.id })).status).toBe(200);
  });

  it('answers an unresolvable blog with 400', async () => {
    const res = await t.request('GET', '/v1/posts');
    expectError(res, 400, 'bad_request');
    expect(res.body.message).toBe('blog not resolved: send X-Blog-Id or use a blog-bound key');
  });
});

describe('401 unauthorized', () => {
  it('answers a missing, non-Bearer, non-pk_live, unknown or revoked key with 401', async () => {
    expectError(await t.request('GET', '/v1/blogs', { key: null }), 401, 'unauthorized');
    expectError(await t.request('GET', '/v1/blogs', { key: null, headers: { authorization: `Token ${t.key}` } }), 401, 'unauthorized');
    expectError(await t.request('GET', '/v1/blogs', { key: 'sk_live_abcdefghijklmnopqrstuvwxyz0123456789ABC' }), 401, 'unauthorized');
    expectError(await t.request('GET', '/v1/blogs', { key: 'pk_live_abcdefghijklmnopqrstuvwxyz0123456789ABC' }), 401, 'unauthorized');
    const key = await createKey(blog.actor, blog.id);
    await blog.actor.request('DELETE', `/v1/blogs/${blog.id}/api-keys/${key.id}`);
    expectError(await t.request('GET', '/v1/blogs', { key: key.key }), 401, 'unauthorized');
  });
});

describe('403 forbidden', () => {
  it('answers a missing scope with 403 without required_plan', async () => {
    const key = await createKey(blog.actor, blog.id, { scopes: ['search:read'] });
    const res = await t.request('GET', '/v1/posts', { key: key.key });
    expectError(res, 403, 'forbidden');
    expect(res.body.required_plan).toBeUndefined();
  });

  it('answers a plan restriction with 403 and required_plan', async () => {
    const free = await buildBlog(t, { plan: 'free' });
    const res = await free.actor.request('POST', `/v1/blogs/${free.id}/domain`, { body: { hostname: 'x.example.com' } });
    expectError(res, 403, 'forbidden');
    expect(res.body.required_plan).toBe('starter');
  });
});

describe('404 not_found', () => {
  it('answers unknown routes with a JSON 404, with or without a key', async () => {
    for (const path of ['/', '/v1', '/v1/', '/v2/posts', '/v1/post', '/v1/posts/a/b/c', '/v1/blogs/x/y', '/favicon.ico', '/admin', '/v1/openapi.yaml']) {
      expectError(await t.request('GET', path, { key: null }), 404, 'not_found');
      expectError(await t.request('GET', path), 404, 'not_found');
    }
  });

  it('answers a known path with an unknown method with a JSON 404', async () => {
    expectError(await t.request('PATCH', '/v1/posts', { blogId: blog.id, body: { title: 'x' } }), 404, 'not_found');
    expectError(await t.request('PUT', '/v1/blogs', { body: { name: 'x' } }), 404, 'not_found');
    expectError(await t.request('OPTIONS', '/v1/posts'), 404, 'not_found');
  });

  it('answers unknown resources with 404', async () => {
    expectError(await t.request('GET', postPath('nope'), { blogId: blog.id }), 404, 'not_found');
    expectError(await t.request('GET', '/v1/blogs/00000000-0000-4000-8000-000000000000'), 404, 'not_found');
  });

  it('answers a slug with broken percent-encoding with 404, not 500', async () => {
    expectError(await t.request('GET', '/v1/posts/%E0%A4%A', { blogId: blog.id }), 404, 'not_found');
    expectError(await t.request('GET', '/v1/posts/%', { blogId: blog.id }), 404, 'not_found');
    expectError(await t.request('GET', '/v1/blogs/%ZZ'), 404, 'not_found');
  });
});

describe('409 conflict', () => {
  it('answers a taken post slug, a taken blog slug and a refused transition with 409', async () => {
    expectError(await t.request('POST', '/v1/posts', { blogId: blog.id, body: { title: 'x', content: 'y', slug: 'existing' } }), 409, 'conflict');
    expectError(await t.request('POST', '/v1/blogs', { body: { slug: blog.slug, name: 'x' } }), 409, 'conflict');
    expectError(await t.request('POST', postPath('existing', '/unpublish'), { blogId: blog.id }), 409, 'conflict');
  });
});

describe('413 payload_too_large', () => {
  it('answers a body over 2 MB with 413', async () => {
    const raw = JSON.stringify({ title: 'big', content: 'a'.repeat(MB2) });
    const res = await t.request('POST', '/v1/posts', { blogId: blog.id, raw, headers: { 'content-type': 'application/json' } });
    expectError(res, 413, 'payload_too_large');
  });

  it('answers a body of exactly 2 MB without 413', async () => {
    const envelope = JSON.stringify({ title: 'big', content: '' });
    const raw = JSON.stringify({ title: 'big', content: 'a'.repeat(MB2 - envelope.length) });
    expect(Buffer.byteLength(raw)).toBe(MB2);
    const res = await t.request('POST', '/v1/posts', { blogId: blog.id, raw, headers: { 'content-type': 'application/json' } });
    expectFieldError(res, 'content');
    const over = JSON.stringify({ title: 'big', content: 'a'.repeat(MB2 - envelope.length + 1) });
    expectError(
      await t.request('POST', '/v1/posts', { blogId: blog.id, raw: over, headers: { 'content-type': 'application/json' } }),
      413,
      'payload_too_large',
    );
  });

  it('answers a chunked body over 2 MB with 413', async () => {
    const chunk = Buffer.alloc(256 * 1024, 'a');
    const chunks: (string | Buffer)[] = ['{"title":"big","content":"', ...Array.from({ length: 9 }, () => chunk), '"}'];
    const res = await rawRequest(
      t,
      'POST',
      '/v1/posts',
      { authorization: `Bearer ${t.key}`, 'x-blog-id': blog.id, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      chunks,
    );
    expectError(res, 413, 'payload_too_large');
  });

  it('does not leave a keep-alive connection hanging after a 413', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const chunk = Buffer.alloc(256 * 1024, 'a');
      const big = await rawRequest(
        t,
        'POST',
        '/v1/posts',
        { authorization: `Bearer ${t.key}`, 'x-blog-id': blog.id, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        ['{"title":"big","content":"', ...Array.from({ length: 12 }, () => chunk), '"}'],
        agent,
      );
      expectError(big, 413, 'payload_too_large');
      const next = await Promise.race([
        rawRequest(t, 'GET', '/healthz', {}, [], agent),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the next request on the connection hung')), 3000)),
      ]);
      expect(next.status).toBe(200);
    } finally {
      agent.destroy();
    }
  });
});

describe('415 unsupported_media_type', () => {
  it('answers a body that is not application/json with 415', async () => {
    const body = JSON.stringify({ title: 'x', content: 'y' });
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'text/json-ish']) {
      const res = await t.request('POST', '/v1/posts', { blogId: blog.id, raw: body, headers: { 'content-type': type } });
      expectError(res, 415, 'unsupported_media_type');
    }
  });

  it('answers a body without Content-Type with 415', async () => {
    const res = await rawRequest(t, 'POST', '/v1/blogs', { authorization: `Bearer ${t.key}`, 'content-length': '2' }, ['{}']);
    expectError(res, 415, 'unsupported_media_type');
  });

  it('accepts application/json with a charset', async () => {
    const raw = JSON.stringify({ title: 'charset', content: 'y' });
    const res = await t.request('POST', '/v1/posts', { blogId: blog.id, raw, headers: { 'content-type': 'application/json; charset=utf-8' } });
    expect(res.status).toBe(201);
  });
});

describe('500 internal_error', () => {
  let broken: TestApp;
  beforeAll(async () => {
    broken = await startTestApp({
      searcher: {
        search: async () => {
          throw new Error('index exploded at /srv/folio/src/search/engine.ts:42');
        },
      },
      searchUpdater: { upsert: async () => {}, remove: async () => {}, rebuildFrom: async () => {}, drop: async () => {} },
    });
  });
  afterAll(async () => broken.close());

  it('answers an unexpected failure with 500, a request id and no stack trace', async () => {
    const b = await buildBlog(broken);
    const res = await b.actor.request('GET', '/v1/search?q=hello', { blogId: b.id, headers: { 'x-request-id': 'req-123' } });
    expectError(res, 500, 'internal_error');
    expect(res.body.message).toContain('req-123');
    expect(res.headers.get('x-request-id')).toBe('req-123');
    expect(res.text).not.toContain('exploded');
    expect(res.text).not.toContain('engine.ts');
  });
});

describe('every response', () => {
  it('is JSON and carries an X-Request-Id', async () => {
    const responses = [
      await t.request('GET', '/v1/blogs'),
      await t.request('GET', '/nowhere'),
      await t.request('GET', '/healthz', { key: null }),
      await t.request('POST', '/v1/posts', { blogId: blog.id, raw: '{', headers: { 'content-type': 'application/json' } }),
    ];
    for (const res of responses) {
      expectNoLeak(res);
      expect(res.headers.get('x-request-id')).toMatch(/^[\w.-]+$/);
    }
  });

  it('does not echo a hostile X-Request-Id', async () => {
    const res = await t.request('GET', '/v1/blogs', { headers: { 'x-request-id': '<script>alert(1)</script>' } });
    expect(res.headers.get('x-request-id')).not.toContain('<');
  });
});
