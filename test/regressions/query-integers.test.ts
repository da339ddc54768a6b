/**
 * Regression: Ajv's type coercion turned any JavaScript number syntax in a query string into a
 * number. `page=Infinity`, `page=1e309` and `per_page=1e309` passed validation and failed in
 * SQLite with a 500 (search answered `"page": null`), and `0x10`, `1e3`, ` 1`, `+1`, `1.0`
 * were silently read as 16, 1000 and 1. A query integer is now decimal digits only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { buildBlog, buildPost, expectError, type BuiltBlog } from '../support/factories.js';

let t: TestApp;
let blog: BuiltBlog;
beforeAll(async () => {
  t = await startTestApp();
  blog = await buildBlog(t);
  await buildPost(blog, { title: 'Findable words', status: 'published' });
});
afterAll(async () => t.close());

const ROUTES = [
  ['GET /v1/posts', '/v1/posts?'],
  ['GET /v1/search', '/v1/search?q=findable&'],
] as const;

/** Raw query values, already percent-encoded where needed. */
const REFUSED = [
  'Infinity',
  '-Infinity',
  '1e309',
  '9007199254740993',
  '1.0',
  '0x10',
  '%201',
  '1%20',
  '%2B1',
  '-1',
  '1e3',
  '',
  'NaN',
  'true',
  '1%2C2',
  '%EF%BC%91',
];

describe.each(ROUTES)('%s query integers', (_name, prefix) => {
  it.each(REFUSED)('answers page=%s with 400 naming page', async (value) => {
    const res = await blog.actor.request('GET', `${prefix}page=${value}`, { blogId: blog.id });
    expectError(res, 400, 'bad_request');
    expect(res.body.details.map((d: { field: string }) => d.field)).toEqual(['page']);
  });

  it.each(REFUSED)('answers per_page=%s with 400 naming per_page', async (value) => {
    const res = await blog.actor.request('GET', `${prefix}per_page=${value}`, { blogId: blog.id });
    expectError(res, 400, 'bad_request');
    expect(res.body.details.map((d: { field: string }) => d.field)).toEqual(['per_page']);
  });

  it('answers a repeated page with 400 naming page', async () => {
    const res = await blog.actor.request('GET', `${prefix}page=1&page=2`, { blogId: blog.id });
    expectError(res, 400, 'bad_request');
    expect(res.body.details.map((d: { field: string }) => d.field)).toEqual(['page']);
  });

  it('says which syntax it takes', async () => {
    const res = await blog.actor.request('GET', `${prefix}page=1e3`, { blogId: blog.id });
    expect(res.body.details[0].message).toBe('must be a whole number written with the digits 0-9 only');
  });

  it('names the maximum for digits beyond it, however many', async () => {
    for (const value of ['1000001', '9007199254740993', '9'.repeat(400)]) {
      const res = await blog.actor.request('GET', `${prefix}page=${value}`, { blogId: blog.id });
      expectError(res, 400, 'bad_request');
      expect(res.body.details).toEqual([{ field: 'page', message: 'must be at most 1000000' }]);
    }
  });

  it('accepts decimal digits, leading zeros included, up to the maximum', async () => {
    for (const [query, page, perPage] of [
      ['page=1&per_page=5', 1, 5],
      ['page=007&per_page=05', 7, 5],
      ['page=1000000', 1_000_000, 20],
    ] as const) {
      const res = await blog.actor.request('GET', `${prefix}${query}`, { blogId: blog.id });
      expect(res.status, res.text).toBe(200);
      expect(res.body.pagination.page).toBe(page);
      expect(res.body.pagination.per_page).toBe(perPage);
    }
  });
});
