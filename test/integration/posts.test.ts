import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { buildBlog, buildPost, expectError, expectFieldError, ISO_MS, jobsSince, postPath, sortedKeys, type BuiltBlog } from '../support/factories.js';

const SUMMARY_KEYS = ['created_at', 'id', 'meta_description', 'published_at', 'slug', 'status', 'tags', 'title', 'updated_at'];
const FULL_KEYS = [
  'aliases',
  'blog_id',
  'content_html',
  'content_md',
  'created_at',
  'id',
  'meta_description',
  'og_image_url',
  'published_at',
  'scheduled_at',
  'slug',
  'status',
  'tags',
  'title',
  'updated_at',
];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /v1/posts', () => {
  let blog: BuiltBlog;
  beforeAll(async () => {
    blog = await buildBlog(t);
  });

  it('answers 201 with exactly id, slug, url, status and created_at', async () => {
    const res = await blog.actor.request('POST', '/v1/posts', { blogId: blog.id, body: { title: 'First post', content: 'Hello.' } });
    expect(res.status).toBe(201);
    expect(sortedKeys(res.body)).toEqual(['created_at', 'id', 'slug', 'status', 'url']);
    expect(res.body.id).toMatch(UUID);
    expect(res.body.slug).toBe('first-post');
    expect(res.body.status).toBe('draft');
    expect(res.body.created_at).toMatch(ISO_MS);
    expect(res.body.created_at).toBe(t.clock.now().toISOString());
    expect(res.body.url).toBe(`http://${blog.slug}.localhost:3000/first-post`);
  });

  it('creates the post as published when status is published', async () => {
    const res = await blog.actor.request('POST', '/v1/posts', { blogId: blog.id, body: { title: 'Live now', content: 'x', status: 'published' } });
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('published');
    const got = await blog.actor.request('GET', postPath(res.body.slug), { blogId: blog.id });
    expect(got.body.published_at).toBe(t.clock.now().toISOString());
  });

  it('stores every input field and returns them from GET', async () => {
    const created = await buildPost(blog, {
      title: 'All fields',
      content: '# Heading\n\nBody text.',
      slug: 'all-fields',
      tags: ['one', 'two'],
      meta: { description: 'Hand written.', og_image: 'https://img.example.com/a.png' },
    });
    const res = await blog.actor.request('GET', postPath(created.slug), { blogId: blog.id });
    expect(res.status).toBe(200);
    expect(sortedKeys(res.body)).toEqual(FULL_KEYS);
    expect(res.body).toMatchObject({
      id: created.id,
      blog_id: blog.id,
      title: 'All fields',
      slug: 'all-fields',
      content_md: '# Heading\n\nBody text.',
      meta_description: 'Hand written.',
      og_image_url: 'https://img.example.com/a.png',
      tags: ['one', 'two'],
      status: 'draft',
      published_at: null,
      scheduled_at: null,
    });
    expect(res.body.content_html).toContain('<h1>Heading</h1>');
    expect(res.body.created_at).toMatch(ISO_MS);
    expect(res.body.updated_at).toMatch(ISO_MS);
  });

  it('answers 400 naming title and content when they are missing', async () => {
    const res = await blog.actor.request('POST', '/v1/posts', { blogId: blog.id, body: {} });
    expectFieldError(res, 'title');
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain('content');
  });

  it('answers 400 for unknown fields', async () => {
    const res = await blog.actor.request('POST', '/v1/posts', { blogId: blog.id, body: { title: 'x', content: 'y', author: 'me' } });
    expectFieldError(res, 'author');
  });

  it('answers 400 naming meta.og_image when it is not an http(s) URL', async () => {
    const res = await blog.actor.request('POST', '/v1/posts', {
      blogId: blog.id,
      body: { title: 'x', content: 'y', meta: { og_image: 'javascript:alert(1)' } },
    });
    expectFieldError(res, 'meta.og_image');
  });

  it('answers 400 for a title that is only white space', async () => {
    const res = await blog.actor.request('POST', '/v1/posts', { blogId: blog.id, body: { title: '   ', content: 'y' } });
    expectFieldError(res, 'title');
  });

  it('refuses a tag holding U+0000 on create and on edit, before anything is written, on either database', async () => {
    const before = await blog.actor.request('GET', '/v1/posts?per_page=100', { blogId: blog.id });
    const created = await blog.actor.request('POST', '/v1/posts', { blogId: blog.id, body: { title: 'Nul tag', content: 'y', tags: ['ok', 'a\u0000b'] } });
    expectError(created, 400, 'bad_request');
    expect(created.body.message).toContain('U+0000');
    expect((await blog.actor.request('GET', '/v1/posts?per_page=100', { blogId: blog.id })).body.pagination.total).toBe(before.body.pagination.total);
    const post = await buildPost(blog, { title: 'Tagged once', tags: ['kept'] });
    const edited = await blog.actor.request('PUT', postPath(post.slug), { blogId: blog.id, body: { title: 'Changed', tags: ['\u0000'] } });
    expectError(edited, 400, 'bad_request');
    expect((await blog.actor.request('GET', postPath(post.slug), { blogId: blog.id })).body).toMatchObject({ title: 'Tagged once', tags: ['kept'] });
  });
});

describe('post slugs', () => {
  let blog: BuiltBlog;
  beforeAll(async () => {
    blog = await buildBlog(t);
  });

  it('generates a Korean slug from a Korean title', async () => {
    const post = await buildPost(blog, { title: '안녕 세상' });
    expect(post.slug).toBe('안녕-세상');
    expect(post.url).toBe(`http://${blog.slug}.localhost:3000/${encodeURIComponent('안녕-세상')}`);
    const got = await blog.actor.request('GET', postPath('안녕-세상'), { blogId: blog.id });
    expect(got.status).toBe(200);
    expect(got.body.title).toBe('안녕 세상');
  });

  it('lower-cases and joins words with hyphens, dropping punctuation', async () => {
    const post = await buildPost(blog, { title: '  Hello, World!  Ünïcode & Co. 2026 ' });
    expect(post.slug).toBe('hello-world-ünïcode-co-2026');
  });

  it('adds -2 and -3 to generated slugs that are taken', async () => {
    const first = await buildPost(blog, { title: 'Same Title' });
    const second = await buildPost(blog, { title: 'Same Title' });
    const third = await buildPost(blog, { title: 'Same Title' });
    expect([first.slug, second.slug, third.slug]).toEqual(['same-title', 'same-title-2', 'same-title-3']);
  });

  it('never generates a reserved slug', async () => {
    const post = await buildPost(blog, { title: 'Tags' });
    expect(post.slug).toBe('tags-2');
  });

  it('keeps generated slugs at most 100 characters', async () => {
    const post = await buildPost(blog, { title: 'word '.repeat(60) });
    expect(post.slug.length).toBeLessThanOrEqual(100);
    expect(post.slug).toMatch(/^word(-word)+$/);
  });

  it('answers 409 when an explicit slug is taken in the blog', async () => {
    await buildPost(blog, { title: 'Explicit', slug: 'explicit-slug' });
    const res = await blog.actor.request('POST', '/v1/posts', { blogId: blog.id, body: { title: 'Other', content: 'x', slug: 'explicit-slug' } });
    expectError(res, 409, 'conflict');
  });

  it('allows the same explicit slug in another blog', async () => {
    const other = await buildBlog(t, { actor: blog.actor });
    await buildPost(blog, { title: 'Shared', slug: 'shared-slug' });
    const post = await buildPost(other, { title: 'Shared', slug: 'shared-slug' });
    expect(post.slug).toBe('shared-slug');
  });

  for (const reserved of ['page', 'tags', 'archive', 'search', 'assets', '404', 'rss.xml', 'feed.json', 'sitemap.xml', 'robots.txt', 'llms.txt']) {
    it(`answers 400 for the reserved slug "${reserved}"`, async () => {
      const res = await blog.actor.request('POST', '/v1/posts', { blogId: blog.id, body: { title: 'Reserved', content: 'x', slug: reserved } });
      expectFieldError(res, 'slug');
    });
  }

  for (const invalid of ['Upper', 'a/b', 'a.b', 'two words', '-lead', 'trail-', 'dou--ble', '', 'x'.repeat(101)]) {
    it(`answers 400 for the invalid explicit slug ${JSON.stringify(invalid.length > 20 ? `${invalid.slice(0, 5)}…(${invalid.length})` : invalid)}`, async () => {
      const res = await blog.actor.request('POST', '/v1/posts', { blogId: blog.id, body: { title: 'Invalid', content: 'x', slug: invalid } });
      expectFieldError(res, 'slug');
    });
  }

  it('accepts an explicit Korean slug and one of exactly 100 characters', async () => {
    expect((await buildPost(blog, { title: 'k', slug: '한국어-슬러그' })).slug).toBe('한국어-슬러그');
    expect((await buildPost(blog, { title: 'k', slug: 'y'.repeat(100) })).slug).toBe('y'.repeat(100));
  });

  it('renaming a published post records a redirect and a job naming the previous slug', async () => {
    const post = await buildPost(blog, { title: 'Old name', slug: 'old-name', status: 'published' });
    const before = t.handledJobs.length;
    const res = await blog.actor.request('PUT', postPath('old-name'), { blogId: blog.id, body: { slug: 'new-name' } });
    expect(res.status).toBe(200);
    expect(res.body.slug).toBe('new-name');
    expect(jobsSince(t, before)).toEqual([{ kind: 'post', blogId: blog.id, payload: expect.objectContaining({ postId: post.id, previousSlug: 'old-name' }) }]);
    expect(await t.folio.repos.posts.findRedirect(blog.id, 'old-name')).toBe(post.id);
    expectError(await blog.actor.request('GET', postPath('old-name'), { blogId: blog.id }), 404, 'not_found');
    expect((await blog.actor.request('GET', postPath('new-name'), { blogId: blog.id })).body.id).toBe(post.id);
  });

  it('renaming a draft records no redirect', async () => {
    await buildPost(blog, { title: 'Draft name', slug: 'draft-name' });
    const res = await blog.actor.request('PUT', postPath('draft-name'), { blogId: blog.id, body: { slug: 'draft-renamed' } });
    expect(res.status).toBe(200);
    expect(await t.folio.repos.posts.findRedirect(blog.id, 'draft-name')).toBeNull();
  });

  it('answers 409 when renaming onto a slug another post holds, and 400 onto a reserved one', async () => {
    await buildPost(blog, { title: 'a', slug: 'holder-a' });
    await buildPost(blog, { title: 'b', slug: 'holder-b' });
    expectError(await blog.actor.request('PUT', postPath('holder-b'), { blogId: blog.id, body: { slug: 'holder-a' } }), 409, 'conflict');
    expectFieldError(await blog.actor.request('PUT', postPath('holder-b'), { blogId: blog.id, body: { slug: 'page' } }), 'slug');
    expect((await blog.actor.request('GET', postPath('holder-b'), { blogId: blog.id })).status).toBe(200);
  });
});

describe('GET /v1/posts', () => {
  let blog: BuiltBlog;
  beforeAll(async () => {
    blog = await buildBlog(t);
    for (let i = 1; i <= 5; i += 1) {
      t.clock.advance(1000);
      await buildPost(blog, { title: `List ${i}`, tags: i % 2 === 0 ? ['even'] : ['odd'], status: i <= 2 ? 'published' : 'draft' });
    }
  });

  it('answers {data, pagination} with summary entries, newest first by default', async () => {
    const res = await blog.actor.request('GET', '/v1/posts', { blogId: blog.id });
    expect(res.status).toBe(200);
    expect(sortedKeys(res.body)).toEqual(['data', 'pagination']);
    expect(res.body.pagination).toEqual({ page: 1, per_page: 20, total: 5, total_pages: 1 });
    expect(res.body.data.map((p: { title: string }) => p.title)).toEqual(['List 5', 'List 4', 'List 3', 'List 2', 'List 1']);
    for (const post of res.body.data) {
      expect(sortedKeys(post)).toEqual(SUMMARY_KEYS);
      expect(post.created_at).toMatch(ISO_MS);
      expect(post.updated_at).toMatch(ISO_MS);
      if (post.published_at !== null) expect(post.published_at).toMatch(ISO_MS);
    }
  });

  it('orders posts created in the same millisecond by creation, in both directions', async () => {
    const same = await buildBlog(t, { actor: blog.actor });
    const slugs: string[] = [];
    for (let i = 0; i < 6; i += 1) slugs.push((await buildPost(same, { title: `Same ms ${i}` })).slug);
    const desc = await same.actor.request('GET', '/v1/posts', { blogId: same.id });
    expect(desc.body.data.map((p: { slug: string }) => p.slug)).toEqual([...slugs].reverse());
    const asc = await same.actor.request('GET', '/v1/posts?order=asc', { blogId: same.id });
    expect(asc.body.data.map((p: { slug: string }) => p.slug)).toEqual(slugs);
  });

  it('filters by status and by tag', async () => {
    const published = await blog.actor.request('GET', '/v1/posts?status=published', { blogId: blog.id });
    expect(published.body.data.map((p: { title: string }) => p.title).sort()).toEqual(['List 1', 'List 2']);
    const even = await blog.actor.request('GET', '/v1/posts?tag=even', { blogId: blog.id });
    expect(even.body.data.map((p: { title: string }) => p.title).sort()).toEqual(['List 2', 'List 4']);
    expect(even.body.pagination.total).toBe(2);
  });

  it('pages with page and per_page', async () => {
    const res = await blog.actor.request('GET', '/v1/posts?per_page=2&page=3&order=asc', { blogId: blog.id });
    expect(res.body.pagination).toEqual({ page: 3, per_page: 2, total: 5, total_pages: 3 });
    expect(res.body.data.map((p: { title: string }) => p.title)).toEqual(['List 5']);
    const beyond = await blog.actor.request('GET', '/v1/posts?per_page=2&page=9', { blogId: blog.id });
    expect(beyond.status).toBe(200);
    expect(beyond.body.data).toEqual([]);
  });

  it('sorts by published_at with unpublished posts last', async () => {
    const res = await blog.actor.request('GET', '/v1/posts?sort=published_at&order=desc', { blogId: blog.id });
    expect(res.body.data.slice(0, 2).map((p: { title: string }) => p.title)).toEqual(['List 2', 'List 1']);
    expect(res.body.data.slice(2).every((p: { published_at: unknown }) => p.published_at === null)).toBe(true);
  });

  for (const query of ['status=archived', 'sort=title', 'order=up', 'page=0', 'page=x', 'per_page=0', 'unknown=1']) {
    it(`answers 400 for the query ${query}`, async () => {
      const res = await blog.actor.request('GET', `/v1/posts?${query}`, { blogId: blog.id });
      expectFieldError(res, query.split('=')[0]!);
    });
  }
});

describe('PUT /v1/posts/:slug', () => {
  let blog: BuiltBlog;
  beforeAll(async () => {
    blog = await buildBlog(t);
  });

  it('answers 200 with exactly the summary fields and changes only what is sent', async () => {
    await buildPost(blog, { title: 'Before', content: 'Old body.', slug: 'put-me', tags: ['keep'], meta: { og_image: 'https://x.example/a.png' } });
    t.clock.advance(5000);
    const res = await blog.actor.request('PUT', postPath('put-me'), { blogId: blog.id, body: { title: 'After', tags: ['new', 'tags'] } });
    expect(res.status).toBe(200);
    expect(sortedKeys(res.body)).toEqual(SUMMARY_KEYS);
    expect(res.body).toMatchObject({ title: 'After', slug: 'put-me', tags: ['new', 'tags'], status: 'draft' });
    expect(res.body.updated_at).toBe(t.clock.now().toISOString());
    expect(res.body.created_at).not.toBe(res.body.updated_at);
    const got = await blog.actor.request('GET', postPath('put-me'), { blogId: blog.id });
    expect(got.body.content_md).toBe('Old body.');
    expect(got.body.og_image_url).toBe('https://x.example/a.png');
  });

  it('answers 400 for an empty body and 404 for an unknown slug', async () => {
    await buildPost(blog, { title: 'x', slug: 'empty-put' });
    expectError(await blog.actor.request('PUT', postPath('empty-put'), { blogId: blog.id, body: {} }), 400, 'bad_request');
    expectError(await blog.actor.request('PUT', postPath('no-such-post'), { blogId: blog.id, body: { title: 'x' } }), 404, 'not_found');
  });

  it('answers 400 for status scheduled', async () => {
    await buildPost(blog, { title: 'x', slug: 'put-scheduled' });
    expectFieldError(await blog.actor.request('PUT', postPath('put-scheduled'), { blogId: blog.id, body: { status: 'scheduled' } }), 'status');
  });

  it('re-renders content_html when content changes', async () => {
    await buildPost(blog, { title: 'x', slug: 'rerender', content: 'plain' });
    await blog.actor.request('PUT', postPath('rerender'), { blogId: blog.id, body: { content: '**bold**' } });
    const got = await blog.actor.request('GET', postPath('rerender'), { blogId: blog.id });
    expect(got.body.content_md).toBe('**bold**');
    expect(got.body.content_html).toContain('<strong>bold</strong>');
  });

  it('removes og_image_url when meta.og_image is null', async () => {
    await buildPost(blog, { title: 'x', slug: 'og-null', meta: { og_image: 'https://x.example/a.png' } });
    await blog.actor.request('PUT', postPath('og-null'), { blogId: blog.id, body: { meta: { og_image: null } } });
    expect((await blog.actor.request('GET', postPath('og-null'), { blogId: blog.id })).body.og_image_url).toBeNull();
  });
});

describe('DELETE /v1/posts/:slug', () => {
  it('answers {deleted: true} and the post is gone', async () => {
    const blog = await buildBlog(t);
    await buildPost(blog, { title: 'x', slug: 'doomed' });
    const res = await blog.actor.request('DELETE', postPath('doomed'), { blogId: blog.id });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deleted: true });
    expectError(await blog.actor.request('GET', postPath('doomed'), { blogId: blog.id }), 404, 'not_found');
    expectError(await blog.actor.request('DELETE', postPath('doomed'), { blogId: blog.id }), 404, 'not_found');
  });

  it('frees the slug for a new post', async () => {
    const blog = await buildBlog(t);
    await buildPost(blog, { title: 'x', slug: 'reuse-me' });
    await blog.actor.request('DELETE', postPath('reuse-me'), { blogId: blog.id });
    expect((await buildPost(blog, { title: 'y', slug: 'reuse-me' })).slug).toBe('reuse-me');
  });
});

describe('meta_description', () => {
  let blog: BuiltBlog;
  beforeAll(async () => {
    blog = await buildBlog(t);
  });

  const meta = async (slug: string): Promise<string> => (await blog.actor.request('GET', postPath(slug), { blogId: blog.id })).body.meta_description;

  it('is generated from the plain text of the content, leaving headings out', async () => {
    await buildPost(blog, { title: 'x', slug: 'gen-plain', content: '# Title\n\nA **short** [intro](https://example.com).' });
    expect(await meta('gen-plain')).toBe('A short intro.');
  });

  it('keeps whole first sentences within 160 characters', async () => {
    const s1 = 'The first sentence is here.';
    const s2 = 'The second one follows it.';
    const s3 = `A third sentence is far too long to fit ${'x'.repeat(150)}.`;
    await buildPost(blog, { title: 'x', slug: 'gen-sentences', content: `${s1} ${s2} ${s3}` });
    expect(await meta('gen-sentences')).toBe(`${s1} ${s2}`);
  });

  it('is cut at a word boundary when no sentence fits', async () => {
    const words = Array.from({ length: 80 }, (_, i) => `word${i}`).join(' ');
    await buildPost(blog, { title: 'x', slug: 'gen-words', content: words });
    const description = await meta('gen-words');
    expect(description.length).toBeLessThanOrEqual(160);
    const text = description.replace(/…$/, '');
    expect(words.startsWith(text)).toBe(true);
    expect(words[text.length]).toBe(' ');
  });

  it('follows content changes until set explicitly, then stays', async () => {
    await buildPost(blog, { title: 'x', slug: 'follow', content: 'Original text.' });
    const changed = await blog.actor.request('PUT', postPath('follow'), { blogId: blog.id, body: { content: 'Updated text.' } });
    expect(changed.body.meta_description).toBe('Updated text.');
    const explicit = await blog.actor.request('PUT', postPath('follow'), { blogId: blog.id, body: { meta: { description: 'Mine.' } } });
    expect(explicit.body.meta_description).toBe('Mine.');
    const later = await blog.actor.request('PUT', postPath('follow'), { blogId: blog.id, body: { content: 'Third text.' } });
    expect(later.body.meta_description).toBe('Mine.');
    expect(await meta('follow')).toBe('Mine.');
  });

  it('stays when supplied at creation, and follows again after being set to null', async () => {
    await buildPost(blog, { title: 'x', slug: 'explicit-create', content: 'Body one.', meta: { description: 'Given.' } });
    const put = await blog.actor.request('PUT', postPath('explicit-create'), { blogId: blog.id, body: { content: 'Body two.' } });
    expect(put.body.meta_description).toBe('Given.');
    const reset = await blog.actor.request('PUT', postPath('explicit-create'), { blogId: blog.id, body: { meta: { description: null } } });
    expect(reset.body.meta_description).toBe('Body two.');
    const again = await blog.actor.request('PUT', postPath('explicit-create'), { blogId: blog.id, body: { content: 'Body three.' } });
    expect(again.body.meta_description).toBe('Body three.');
  });
});

describe('content_html sanitising', () => {
  let blog: BuiltBlog;
  beforeAll(async () => {
    blog = await buildBlog(t);
  });

  const render = async (content: string): Promise<string> => {
    const post = await buildPost(blog, { title: 'xss', content });
    return (await blog.actor.request('GET', postPath(post.slug), { blogId: blog.id })).body.content_html;
  };

  const JS_URL = /(href|src|action|formaction|srcset|xlink:href)\s*=\s*["']?\s*(javascript|vbscript|data:text\/html)/i;

  it('removes script elements', async () => {
    const html = await render('Hi <script>alert(1)</script> <SCRIPT src="https://evil.example/x.js"></SCRIPT> there');
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain('Hi');
  });

  it('removes onerror and onclick attributes', async () => {
    const html = await render(
      '<img src="https://x.example/a.png" onerror="alert(1)"> <a href="https://x.example" onclick="steal()">x</a> <div onmouseover="x()">d</div>',
    );
    expect(html).not.toMatch(/\bon[a-z]+\s*=/i);
    expect(html).toContain('<img');
  });

  it('removes javascript: URLs from links and images, in Markdown and in HTML', async () => {
    const html = await render(
      '[md](javascript:alert(1)) <a href="javascript:alert(1)">a</a> <a href="JaVaScRiPt:alert(1)">b</a> <a href="&#106;avascript:alert(1)">c</a> <img src="javascript:alert(1)">',
    );
    expect(html).not.toMatch(JS_URL);
  });

  it('removes iframe elements', async () => {
    expect(await render('<iframe src="https://evil.example"></iframe> after')).not.toMatch(/<iframe/i);
  });

  it('removes form elements and their controls', async () => {
    const html = await render('<form action="https://evil.example"><input name="p"><button formaction="javascript:x">go</button></form>');
    expect(html).not.toMatch(/<form|<input|<button/i);
  });

  it('removes style elements and style attributes', async () => {
    const html = await render('<style>body{display:none}</style><p style="position:fixed">p</p>');
    expect(html).not.toMatch(/<style/i);
    expect(html).not.toMatch(/style\s*=/i);
  });

  it('removes svg and object payloads', async () => {
    const html = await render('<svg onload="alert(1)"><script>x</script></svg><object data="x.swf"></object><embed src="x">');
    expect(html).not.toMatch(/<svg|<object|<embed|<script/i);
  });

  it('keeps ordinary Markdown formatting, links and code', async () => {
    const html = await render('## Title\n\n*em* and [link](https://example.com)\n\n```js\nconst a = 1;\n```');
    expect(html).toContain('<h2>Title</h2>');
    expect(html).toContain('<em>em</em>');
    expect(html).toMatch(/<a href="https:\/\/example\.com"/);
    expect(html).toContain('<pre');
  });
});
