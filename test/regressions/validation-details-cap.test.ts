/**
 * Regression: validationError de-duplicated fields with a findIndex per issue, quadratic in the
 * number of issues: a body of 50,000 unknown keys blocked the server for 1.6 s and produced a
 * 400 with 50,000 details (about 3 MB). De-duplication is linear now and details are capped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_DETAILS } from '../../src/http/middleware/validate.js';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { buildBlog, expectError, type BuiltBlog } from '../support/factories.js';

let t: TestApp;
let blog: BuiltBlog;
beforeAll(async () => {
  t = await startTestApp();
  blog = await buildBlog(t);
});
afterAll(async () => t.close());

describe('a body with very many invalid fields', () => {
  it('answers 50,000 unknown keys with 400 quickly, at most MAX_DETAILS details, the message naming the first', async () => {
    const body: Record<string, unknown> = { title: 'Many keys', content: 'x' };
    for (let i = 0; i < 50_000; i += 1) body[`unknown_${i}`] = i;

    const raw = JSON.stringify(body);

    const started = performance.now();
    const res = await blog.actor.request('POST', '/v1/posts', { blogId: blog.id, raw, headers: { 'content-type': 'application/json' } });
    const ms = performance.now() - started;

    expectError(res, 400, 'bad_request');
    expect(MAX_DETAILS).toBe(100);
    expect(res.body.details).toHaveLength(MAX_DETAILS);
    expect(res.body.details[0]).toEqual({ field: 'unknown_0', message: 'is not an allowed field' });
    expect(res.body.message).toBe('invalid request body: unknown_0 is not an allowed field (50000 fields have problems; details lists the first 100)');
    expect(res.text.length).toBeLessThan(20_000);
    // Generous: about 0.2 s here; the quadratic version took 1.6 s of blocked event loop.
    expect(ms).toBeLessThan(1_000);
  });

  it('still lists every field, once, when there are few', async () => {
    const res = await blog.actor.request('POST', '/v1/posts', { blogId: blog.id, body: { title: 5, content: 6, extra: 1 } });
    expectError(res, 400, 'bad_request');
    expect(res.body.details.map((d: { field: string }) => d.field).sort()).toEqual(['content', 'extra', 'title']);
    expect(res.body.message).not.toMatch(/fields have problems/);
  });
});
