import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { buildBlog, buildPost, expectError, expectFieldError, postPath, sortedKeys, uniqueSlug, type BuiltBlog } from '../support/factories.js';

const MB = 1024 * 1024;

/** Exactly `bytes` bytes of UTF-8 made of sentences. */
function sentences(bytes: number, unit = 'Lorem ipsum dolor sit amet. '): string {
  const unitBytes = Buffer.byteLength(unit);
  const text = unit.repeat(Math.floor(bytes / unitBytes));
  return text + 'x'.repeat(bytes - Buffer.byteLength(text));
}

let t: TestApp;
let blog: BuiltBlog;
beforeAll(async () => {
  t = await startTestApp();
  blog = await buildBlog(t);
});
afterAll(async () => t.close());

const createPost = (body: Record<string, unknown>) =>
  blog.actor.request('POST', '/v1/posts', { blogId: blog.id, body: { title: 'Limits', content: 'x', ...body } });
const stored = async (slug: string) => (await blog.actor.request('GET', postPath(slug), { blogId: blog.id })).body;

describe('post content: at most 1 MB (1,048,576 bytes of UTF-8)', () => {
  // Regression: describe() matched sentences over the whole text, quadratic without
  // punctuation, so this request used to hold the server for minutes.
  it('accepts 1 MB of text without any sentence punctuation', async () => {
    const res = await createPost({ content: 'a'.repeat(MB) });
    expect(res.status).toBe(201);
    expect((await stored(res.body.slug)).meta_description).toMatch(/^a+…$/);
  });

  it('accepts exactly 1,048,576 ASCII bytes and stores them untruncated', async () => {
    const content = sentences(MB);
    expect(content.length).toBe(MB);
    const res = await createPost({ content });
    expect(res.status).toBe(201);
    expect((await stored(res.body.slug)).content_md).toBe(content);
  });

  it('answers 400 naming content for 1,048,577 bytes', async () => {
    expectFieldError(await createPost({ content: sentences(MB + 1) }), 'content');
  });

  it('measures bytes, not characters: 1,048,576 bytes of Korean pass, 1,048,578 fail', async () => {
    const exact = sentences(MB, '한국어 문장입니다. ');
    expect(Buffer.byteLength(exact)).toBe(MB);
    expect(exact.length).toBeLessThan(MB / 2);
    const res = await createPost({ content: exact });
    expect(res.status).toBe(201);
    expect((await stored(res.body.slug)).content_md).toBe(exact);
    const over = sentences(MB + 2, '한국어 문장입니다. ');
    expect(over.length).toBeLessThan(MB / 2);
    expectFieldError(await createPost({ content: over }), 'content');
  });

  it('applies the same limit to PUT', async () => {
    const post = await buildPost(blog, { title: 'Grows' });
    const content = sentences(MB);
    expect((await blog.actor.request('PUT', postPath(post.slug), { blogId: blog.id, body: { content } })).status).toBe(200);
    expectFieldError(await blog.actor.request('PUT', postPath(post.slug), { blogId: blog.id, body: { content: sentences(MB + 1) } }), 'content');
    expect((await stored(post.slug)).content_md).toBe(content);
  });
});

describe('tags: at most 10, each at most 50 characters', () => {
  const tags = (n: number) => Array.from({ length: n }, (_, i) => `tag${i}`);

  it('accepts 10 tags and stores them all', async () => {
    const res = await createPost({ tags: tags(10) });
    expect(res.status).toBe(201);
    expect((await stored(res.body.slug)).tags).toEqual(tags(10));
  });

  it('answers 400 naming tags for 11 tags, on POST and PUT', async () => {
    expectFieldError(await createPost({ tags: tags(11) }), 'tags');
    const post = await buildPost(blog, { title: 'Tagged', tags: ['keep'] });
    expectFieldError(await blog.actor.request('PUT', postPath(post.slug), { blogId: blog.id, body: { tags: tags(11) } }), 'tags');
    expect((await stored(post.slug)).tags).toEqual(['keep']);
  });

  it('accepts a tag of 50 characters, also Korean and emoji ones', async () => {
    const list = ['t'.repeat(50), '한'.repeat(50), '🙂'.repeat(50)];
    const res = await createPost({ tags: list });
    expect(res.status).toBe(201);
    expect((await stored(res.body.slug)).tags).toEqual(list);
  });

  it('answers 400 naming tags[i] for a tag of 51 characters', async () => {
    expectFieldError(await createPost({ tags: ['ok', 'fine', 'x'.repeat(51)] }), 'tags[2]');
    expectFieldError(await createPost({ tags: ['한'.repeat(51)] }), 'tags[0]');
  });

  it('answers 400 for empty, blank and non-string tags', async () => {
    expectFieldError(await createPost({ tags: [''] }), 'tags[0]');
    expectFieldError(await createPost({ tags: ['a', '   '] }), 'tags[1]');
    expectFieldError(await createPost({ tags: ['a', 'b', 'c', 4] }), 'tags[3]');
    expectFieldError(await createPost({ tags: [null] }), 'tags[0]');
  });
});

describe('GET /v1/posts per_page: at most 100', () => {
  it('accepts per_page=100 and answers it in pagination', async () => {
    const res = await blog.actor.request('GET', '/v1/posts?per_page=100', { blogId: blog.id });
    expect(res.status).toBe(200);
    expect(res.body.pagination.per_page).toBe(100);
  });

  it('answers 400 naming per_page for 101', async () => {
    expectFieldError(await blog.actor.request('GET', '/v1/posts?per_page=101', { blogId: blog.id }), 'per_page');
  });

  it('defaults to 20', async () => {
    expect((await blog.actor.request('GET', '/v1/posts', { blogId: blog.id })).body.pagination.per_page).toBe(20);
  });
});

describe('GET /v1/search validation', () => {
  it('answers {data, pagination} for q of 100 characters', async () => {
    const res = await blog.actor.request('GET', `/v1/search?q=${'q'.repeat(100)}`, { blogId: blog.id });
    expect(res.status).toBe(200);
    expect(sortedKeys(res.body)).toEqual(['data', 'pagination']);
    expect(Array.isArray(res.body.data)).toBe(true);
    expect(sortedKeys(res.body.pagination)).toEqual(['page', 'per_page', 'total', 'total_pages']);
    expect(res.body.pagination).toMatchObject({ page: 1, per_page: 20 });
  });

  it('answers 400 for q of 101 characters, also counted in characters for Korean', async () => {
    expectFieldError(await blog.actor.request('GET', `/v1/search?q=${'q'.repeat(101)}`, { blogId: blog.id }), 'q');
    expect((await blog.actor.request('GET', `/v1/search?q=${encodeURIComponent('블'.repeat(100))}`, { blogId: blog.id })).status).toBe(200);
    expectFieldError(await blog.actor.request('GET', `/v1/search?q=${encodeURIComponent('블'.repeat(101))}`, { blogId: blog.id }), 'q');
  });

  it('answers 400 bad_request saying q is required when q is missing', async () => {
    const res = await blog.actor.request('GET', '/v1/search', { blogId: blog.id });
    expectFieldError(res, 'q');
    expect(res.body.message).toMatch(/q is required/);
  });

  it('accepts per_page=50 and answers 400 for 51', async () => {
    expect((await blog.actor.request('GET', '/v1/search?q=x&per_page=50', { blogId: blog.id })).body.pagination.per_page).toBe(50);
    expectFieldError(await blog.actor.request('GET', '/v1/search?q=x&per_page=51', { blogId: blog.id }), 'per_page');
  });

  it('answers 400 for page=0 and for unknown parameters', async () => {
    expectFieldError(await blog.actor.request('GET', '/v1/search?q=x&page=0', { blogId: blog.id }), 'page');
    expectFieldError(await blog.actor.request('GET', '/v1/search?q=x&sort=new', { blogId: blog.id }), 'sort');
  });

  it('answers 400 when the blog cannot be resolved', async () => {
    const res = await blog.actor.request('GET', '/v1/search?q=x');
    expectError(res, 400, 'bad_request');
    expect(res.body.message).toMatch(/blog not resolved/);
  });
});

describe('blog slug: 1 to 63 characters', () => {
  it('accepts 1 and 63 characters', async () => {
    const oneRes = await blog.actor.request('POST', '/v1/blogs', { body: { slug: 'q', name: 'One' } });
    expect(oneRes.status).toBe(201);
    expect(oneRes.body.slug).toBe('q');
    const slug63 = `${uniqueSlug('s')}-`.padEnd(63, 'x');
    expect(slug63.length).toBe(63);
    const res = await blog.actor.request('POST', '/v1/blogs', { body: { slug: slug63, name: 'Long' } });
    expect(res.status).toBe(201);
    expect(res.body.slug).toBe(slug63);
  });

  it('answers 400 naming slug for 64 characters', async () => {
    expectFieldError(await blog.actor.request('POST', '/v1/blogs', { body: { slug: 'x'.repeat(64), name: 'Too long' } }), 'slug');
  });
});

describe('blog name and description', () => {
  it('accepts a name of 200 and a description of 1000 characters, stored untruncated', async () => {
    const name = 'n'.repeat(200);
    const description = 'd'.repeat(1000);
    const res = await blog.actor.request('POST', '/v1/blogs', { body: { slug: uniqueSlug(), name, description } });
    expect(res.status).toBe(201);
    const got = await blog.actor.request('GET', `/v1/blogs/${res.body.id}`);
    expect(got.body.name).toBe(name);
    expect(got.body.description).toBe(description);
  });

  it('answers 400 for a name of 201 and a description of 1001, on POST and PUT', async () => {
    expectFieldError(await blog.actor.request('POST', '/v1/blogs', { body: { slug: uniqueSlug(), name: 'n'.repeat(201) } }), 'name');
    expectFieldError(await blog.actor.request('POST', '/v1/blogs', { body: { slug: uniqueSlug(), name: 'ok', description: 'd'.repeat(1001) } }), 'description');
    expect((await blog.actor.request('PUT', `/v1/blogs/${blog.id}`, { body: { name: 'n'.repeat(200), description: 'd'.repeat(1000) } })).status).toBe(200);
    expectFieldError(await blog.actor.request('PUT', `/v1/blogs/${blog.id}`, { body: { name: 'n'.repeat(201) } }), 'name');
    expectFieldError(await blog.actor.request('PUT', `/v1/blogs/${blog.id}`, { body: { description: 'd'.repeat(1001) } }), 'description');
    const got = await blog.actor.request('GET', `/v1/blogs/${blog.id}`);
    expect(got.body.name).toBe('n'.repeat(200));
    expect(got.body.description).toBe('d'.repeat(1000));
  });
});

describe('API key name: at most 100 characters', () => {
  it('accepts 100 characters and answers 400 naming name for 101', async () => {
    const ok = await blog.actor.request('POST', `/v1/blogs/${blog.id}/api-keys`, { body: { name: 'k'.repeat(100) } });
    expect(ok.status).toBe(201);
    expect(ok.body.name).toBe('k'.repeat(100));
    expectFieldError(await blog.actor.request('POST', `/v1/blogs/${blog.id}/api-keys`, { body: { name: 'k'.repeat(101) } }), 'name');
  });
});
