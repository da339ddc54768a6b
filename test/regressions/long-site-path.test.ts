/**
 * Regression: a path of 6,000 characters on a blog host reached the folder store as a file name
 * longer than the file system allows; its ENAMETOOLONG became a StorageError and a 500. No
 * object can have such a key, so it is a 404 like any other missing page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { buildBlog, buildPost, expectError, type BuiltBlog } from '../support/factories.js';
import { visit } from '../../bench/harness/visit.js';

let t: TestApp;
let blog: BuiltBlog;
beforeAll(async () => {
  t = await startTestApp();
  blog = await buildBlog(t);
  await buildPost(blog, { title: 'Present', status: 'published' });
});
afterAll(async () => t.close());

describe('very long paths on a blog host', () => {
  it.each([
    ['6,000 characters', `/${'a'.repeat(6_000)}`],
    ['6,000 characters with a file extension', `/${'a'.repeat(6_000)}.html`],
    ['a segment of 300 bytes', `/${'b'.repeat(300)}/`],
    ['a segment of 300 bytes of Korean', `/${encodeURIComponent('한'.repeat(100))}`],
    ['many short segments past PATH_MAX', `/${Array.from({ length: 1_500 }, () => 'abc').join('/')}`],
  ])('answers %s with the blog’s 404 page, not 500', async (_name, path) => {
    const res = await visit(t.baseUrl, `${blog.slug}.localhost:3000`, path);
    expect(res.status, res.text.slice(0, 200)).toBe(404);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
  });

  it('still serves the blog’s pages', async () => {
    expect((await visit(t.baseUrl, `${blog.slug}.localhost:3000`, '/present')).status).toBe(200);
  });

  it('answers a 6,000-character post slug on the API with 404', async () => {
    expectError(await blog.actor.request('GET', `/v1/posts/${'a'.repeat(6_000)}`, { blogId: blog.id }), 404, 'not_found');
  });
});
