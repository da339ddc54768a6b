import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { FsSiteStore } from '../../src/storage/fsSiteStore.js';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { visit as visitHost } from '../../bench/harness/visit.js';

/** What the site server answers for `path` on the blog's subdomain. */
function visit(t: TestApp, blog: string, path: string, headers: Record<string, string> = {}) {
  return visitHost(t.baseUrl, `${blog}.localhost:3000`, path, { headers });
}

describe('publishing lifecycle into the folder store', () => {
  let t: TestApp;
  let store: FsSiteStore;
  let blogId: string;
  const keys = async () => (await store.list('life/')).filter((k) => !k.startsWith('life/_search/'));

  beforeAll(async () => {
    t = await startTestApp();
    store = new FsSiteStore({ root: join(t.dataDir, 'public') });
    const blog = await t.request('POST', '/v1/blogs', { body: { slug: 'life', name: 'Life & <Times>', description: 'A blog' } });
    blogId = blog.body.id;
  });
  afterAll(async () => t.close());

  it('a new blog answers at once with its empty site, and a draft writes nothing to the store', async () => {
    const before = await keys();
    expect(before).toEqual(expect.arrayContaining(['life/index.html', 'life/404.html', 'life/rss.xml', 'life/robots.txt']));
    expect((await store.get('life/index.html'))!.body.toString('utf8')).toContain('No posts yet.');
    const page = await visit(t, 'life', '/');
    expect(page.status).toBe(200);
    const bodies = async () => Promise.all((await keys()).map(async (key) => [key, (await store.get(key))!.body.toString('base64')]));
    const stored = await bodies();
    await t.request('POST', '/v1/posts', { blogId, body: { title: 'Draft only', content: 'secret draft' } });
    expect(await bodies()).toEqual(stored);
  });

  it('publishing writes the post page, lists, feeds and assets, and the page is served at once', async () => {
    const created = await t.request('POST', '/v1/posts', {
      blogId,
      body: { title: 'First post', content: '# Hello\n\nThe first words.', tags: ['Intro', '서버'] },
    });
    const pub = await t.request('POST', `/v1/posts/${created.body.slug}/publish`, { blogId });
    expect(pub.status).toBe(200);
    const all = await keys();
    for (const key of [
      'life/index.html',
      'life/first-post/index.html',
      'life/page/1/index.html',
      'life/tags/intro/index.html',
      'life/tags/intro/page/1/index.html',
      'life/tags/서버/index.html',
      'life/rss.xml',
      'life/feed.json',
      'life/sitemap.xml',
      'life/sitemap-pages.xml',
      'life/sitemap-posts-1.xml',
      'life/robots.txt',
      'life/llms.txt',
      'life/404.html',
    ]) {
      expect(all).toContain(key);
    }
    expect(all.some((k) => /^life\/assets\/site\.[0-9a-f]{8,}\.css$/.test(k))).toBe(true);
    expect(all).not.toContain('life/draft-only/index.html');

    const page = await visit(t, 'life', '/first-post');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.text).toContain('First post');
    expect(page.text).toContain('Life &amp; &lt;Times&gt;');
    expect(page.headers['cache-control']).toMatch(/max-age/);
  });

  it('serves ETag/304, HEAD, and the blog 404 page with status 404', async () => {
    const first = await visit(t, 'life', '/first-post');
    const etag = String(first.headers.etag);
    expect(etag).toBeTruthy();
    expect((await visit(t, 'life', '/first-post', { 'if-none-match': etag })).status).toBe(304);
    const head = await visitHost(t.baseUrl, 'life.localhost:3000', '/first-post', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers['content-length']).toBe(String(Buffer.byteLength(first.text)));
    const missing = await visit(t, 'life', '/no-such-post');
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('<html');
  });

  it('an edit re-renders the post but does not re-upload objects that did not change', async () => {
    const robotsBefore = await store.get('life/robots.txt');
    await t.request('PUT', '/v1/posts/first-post', { blogId, body: { title: 'First post, edited' } });
    expect((await visit(t, 'life', '/first-post')).text).toContain('First post, edited');
    expect((await visit(t, 'life', '/')).text).toContain('First post, edited');
    expect((await visit(t, 'life', '/rss.xml')).text).toContain('First post, edited');
    const robotsAfter = await store.get('life/robots.txt');
    expect(robotsAfter?.etag).toBe(robotsBefore?.etag);
  });

  it('a renamed slug leaves a 301 redirect at the old address', async () => {
    await t.request('PUT', '/v1/posts/first-post', { blogId, body: { slug: 'hello-again' } });
    const old = await visit(t, 'life', '/first-post');
    expect(old.status).toBe(301);
    expect(old.headers.location).toBe('/hello-again');
    expect((await visit(t, 'life', '/hello-again')).status).toBe(200);
  });

  it('tag pages that no longer list any post disappear', async () => {
    await t.request('PUT', '/v1/posts/hello-again', { blogId, body: { tags: ['Intro'] } });
    expect(await keys()).not.toContain('life/tags/서버/index.html');
    expect(await keys()).toContain('life/tags/intro/index.html');
  });

  it('unpublishing removes the page, its old addresses and every list that showed it', async () => {
    await t.request('POST', '/v1/posts/hello-again/unpublish', { blogId });
    expect((await visit(t, 'life', '/hello-again')).status).toBe(404);
    expect((await visit(t, 'life', '/first-post')).status).toBe(404);
    expect((await visit(t, 'life', '/')).text).not.toContain('First post, edited');
    expect((await visit(t, 'life', '/sitemap-posts-1.xml')).text).not.toContain('hello-again');
    expect(await keys()).not.toContain('life/tags/intro/index.html');
  });

  it('a theme change re-renders every page with the custom CSS', async () => {
    await t.request('POST', '/v1/posts', { blogId, body: { title: 'Second', content: 'Two.', status: 'published' } });
    await t.request('PUT', `/v1/blogs/${blogId}`, { body: { theme_config: { customCss: 'body{color:#123456}' } } });
    // Whole-site re-renders run in the background, after the request answered.
    await t.folio.idle();
    expect((await visit(t, 'life', '/second')).text).toContain('#123456');
    expect((await visit(t, 'life', '/')).text).toContain('#123456');
  });

  it('deleting a post removes its page and the redirects that pointed at it', async () => {
    await t.request('POST', '/v1/posts/hello-again/publish', { blogId });
    expect((await visit(t, 'life', '/first-post')).status).toBe(301);
    await t.request('DELETE', '/v1/posts/hello-again', { blogId });
    expect((await visit(t, 'life', '/hello-again')).status).toBe(404);
    expect((await visit(t, 'life', '/first-post')).status).toBe(404);
  });

  it('the store matches the database after every step (verify finds nothing)', async () => {
    const report = await t.folio.publisher.verify((await t.folio.repos.blogs.findById(blogId))!);
    expect(report).toMatchObject({ missing: [], different: [], extra: [] });
  });

  it('verify names what differs from the database, in the order the site is rendered, and a rebuild mends it', async () => {
    const blog = (await t.folio.repos.blogs.findById(blogId))!;
    const options = { contentType: 'text/html; charset=utf-8', cacheControl: 'public, max-age=60' };
    // Changed in the opposite order to the render's: the home page comes first, the feed last.
    await store.put('life/rss.xml', 'not the feed', { ...options, contentType: 'application/rss+xml' });
    await store.put('life/index.html', '<p>someone else</p>', options);
    await store.deleteMany(['life/second/index.html']);
    await store.put('life/stray/index.html', '<p>left over</p>', options);
    const report = await t.folio.publisher.verify(blog);
    expect(report).toMatchObject({ missing: ['life/second/index.html'], different: ['life/index.html', 'life/rss.xml'], extra: ['life/stray/index.html'] });
    await t.folio.publisher.rebuild(blog, { force: true });
    expect(await t.folio.publisher.verify(blog)).toMatchObject({ missing: [], different: [], extra: [] });
  });

  it('deleting the blog deletes every object under its prefix', async () => {
    await t.request('DELETE', `/v1/blogs/${blogId}`);
    await t.folio.idle();
    expect(await store.list('life/')).toEqual([]);
    expect((await visit(t, 'life', '/')).status).toBe(404);
  });
});
