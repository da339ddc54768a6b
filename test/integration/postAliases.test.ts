/**
 * Issue 27 A4: a post moved from Hugo or Jekyll keeps its date (`published_at`) and its old
 * addresses (`aliases`, answering 301 through the site server like a renamed slug's).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { visit as visitHost } from '../../bench/harness/visit.js';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { buildBlog, buildPost, expectError, expectFieldError, postPath, type BuiltBlog } from '../support/factories.js';

let t: TestApp;
let blog: BuiltBlog;
const visit = (path: string) => visitHost(t.baseUrl, `${blog.slug}.localhost:3000`, path);
const get = async (slug: string) => (await blog.actor.request('GET', postPath(slug), { blogId: blog.id })).body;

beforeAll(async () => {
  t = await startTestApp();
  blog = await buildBlog(t);
});
afterAll(async () => t.close());

describe('published_at on create and update', () => {
  it('a published post keeps the past date it is given, and lists, feeds and the sitemap order by it', async () => {
    await buildPost(blog, { title: 'Written today', slug: 'today', status: 'published' });
    const res = await blog.actor.request('POST', '/v1/posts', {
      blogId: blog.id,
      body: { title: 'Written in 2019', slug: 'old-one', content: 'Old words.', status: 'published', published_at: '2019-05-01T09:30:00+09:00' },
    });
    expect(res.status, res.text).toBe(201);
    expect((await get('old-one')).published_at).toBe('2019-05-01T00:30:00.000Z');
    const list = await blog.actor.request('GET', '/v1/posts?sort=published_at&order=asc&status=published', { blogId: blog.id });
    expect(list.body.data.map((p: { slug: string }) => p.slug)).toEqual(['old-one', 'today']);
    const home = (await visit('/')).text;
    expect(home.indexOf('Written today')).toBeLessThan(home.indexOf('Written in 2019'));
    expect((await visit('/archive/2019/05/')).text).toContain('Written in 2019');
    const feed = (await visit('/feed.json')).text;
    expect(JSON.parse(feed).items.map((i: { title: string }) => i.title)).toEqual(['Written today', 'Written in 2019']);
  });

  it('a live post given another date moves in every list, and its old month page goes', async () => {
    const res = await blog.actor.request('PUT', postPath('old-one'), { blogId: blog.id, body: { published_at: '2020-07-04T12:00:00Z' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.published_at).toBe('2020-07-04T12:00:00.000Z');
    await t.folio.idle();
    expect((await visit('/archive/2020/07/')).text).toContain('Written in 2019');
    expect((await visit('/archive/2019/05/')).status).toBe(404);
    const report = await t.folio.publisher.verify((await t.folio.repos.blogs.findById(blog.id))!);
    expect(report).toMatchObject({ missing: [], different: [], extra: [] });
  });

  it('refuses a future date (scheduling is the schedule operation), a draft with a date, and a time without a zone', async () => {
    const future = new Date(t.clock.now().getTime() + 86_400_000).toISOString();
    const ahead = await blog.actor.request('POST', '/v1/posts', {
      blogId: blog.id,
      body: { title: 'Later', content: 'x', status: 'published', published_at: future },
    });
    expectFieldError(ahead, 'published_at');
    expect(ahead.body.message).toContain('schedule');
    expectFieldError(
      await blog.actor.request('POST', '/v1/posts', { blogId: blog.id, body: { title: 'Draft', content: 'x', published_at: '2019-01-01T00:00:00Z' } }),
      'published_at',
    );
    expectFieldError(
      await blog.actor.request('POST', '/v1/posts', {
        blogId: blog.id,
        body: { title: 'Zoneless', content: 'x', status: 'published', published_at: '2019-01-01 10:00' },
      }),
      'published_at',
    );
    expectFieldError(
      await blog.actor.request('POST', '/v1/posts', {
        blogId: blog.id,
        body: { title: 'Feb 30', content: 'x', status: 'published', published_at: '2019-02-30T10:00:00Z' },
      }),
      'published_at',
    );
    expectFieldError(await blog.actor.request('PUT', postPath('today'), { blogId: blog.id, body: { published_at: future } }), 'published_at');
    // A draft published by an update may carry its date.
    await buildPost(blog, { title: 'Was a draft', slug: 'was-draft' });
    const published = await blog.actor.request('PUT', postPath('was-draft'), {
      blogId: blog.id,
      body: { status: 'published', published_at: '2018-12-24T18:00:00Z' },
    });
    expect(published.status, published.text).toBe(200);
    expect(published.body.published_at).toBe('2018-12-24T18:00:00.000Z');
  });
});

describe('aliases', () => {
  it('are normalised, returned by Get Post, and each answers 301 to the post through the site server', async () => {
    const res = await blog.actor.request('POST', '/v1/posts', {
      blogId: blog.id,
      body: {
        title: 'Moved house',
        slug: 'moved-house',
        content: 'From Hugo.',
        status: 'published',
        aliases: ['/2019/05/moved-house', '/2019/05/01/moved-house.html', '//blog/moved/index.html', '/%EC%9D%B4%EC%82%AC/', '/2019/05/moved-house/'],
      },
    });
    expect(res.status, res.text).toBe(201);
    const post = await get('moved-house');
    expect(post.aliases).toEqual(['/2019/05/moved-house/', '/2019/05/01/moved-house.html', '/blog/moved/', '/이사/']);
    for (const path of [
      '/2019/05/moved-house',
      '/2019/05/moved-house/',
      '/2019/05/01/moved-house.html',
      '/blog/moved',
      '/blog/moved/',
      '/%EC%9D%B4%EC%82%AC/',
    ]) {
      const answer = await visit(path);
      expect(answer.status, path).toBe(301);
      expect(answer.headers.location, path).toBe('/moved-house');
    }
  });

  it('follow a renamed slug, and an alias removed by an update stops redirecting', async () => {
    const res = await blog.actor.request('PUT', postPath('moved-house'), {
      blogId: blog.id,
      body: { slug: 'settled', aliases: ['/2019/05/moved-house/', '/blog/moved/'] },
    });
    expect(res.status, res.text).toBe(200);
    expect((await visit('/2019/05/moved-house/')).headers.location).toBe('/settled');
    expect((await visit('/moved-house')).headers.location).toBe('/settled');
    expect((await visit('/2019/05/01/moved-house.html')).status).toBe(404);
    expect((await visit('/이사/'.replace('이사', encodeURIComponent('이사')))).status).toBe(404);
    expect((await get('settled')).aliases).toEqual(['/2019/05/moved-house/', '/blog/moved/']);
  });

  it("a path another post uses (its slug or alias) is a 409; the site's own paths and malformed ones are a 400", async () => {
    const taken = await blog.actor.request('POST', '/v1/posts', { blogId: blog.id, body: { title: 'Other', content: 'x', aliases: ['/blog/moved'] } });
    expectError(taken, 409, 'conflict');
    expect(taken.body.message).toContain('/blog/moved/');
    expectError(
      await blog.actor.request('POST', '/v1/posts', { blogId: blog.id, body: { title: 'Other', content: 'x', aliases: ['/today/'] } }),
      409,
      'conflict',
    );
    // And the other way round: a slug an alias holds is taken; a generated slug goes round it.
    await buildPost(blog, { title: 'Holder', slug: 'holder', aliases: ['/legacy'] });
    expectError(await blog.actor.request('POST', '/v1/posts', { blogId: blog.id, body: { title: 'Other', slug: 'legacy', content: 'x' } }), 409, 'conflict');
    expect((await buildPost(blog, { title: 'Legacy' })).slug).toBe('legacy-2');
    for (const bad of [
      '/tags/x/',
      '/page/2/',
      '/rss.xml',
      '/',
      'no-slash/',
      'https://example.com/x/',
      '/x/?a=1',
      '/x/#top',
      '/a/../b/',
      '/_search/x',
      '/holder.md',
      '/Notes.MD',
    ]) {
      expectFieldError(
        await blog.actor.request('POST', '/v1/posts', { blogId: blog.id, body: { title: 'Other', content: 'x', aliases: [bad] } }),
        'aliases[0]',
      );
    }
    expectFieldError(await blog.actor.request('PUT', postPath('settled'), { blogId: blog.id, body: { aliases: ['/settled/'] } }), 'aliases[0]');
    const eleven = Array.from({ length: 11 }, (_, i) => `/old/${i}/`);
    expectFieldError(await blog.actor.request('POST', '/v1/posts', { blogId: blog.id, body: { title: 'Other', content: 'x', aliases: eleven } }), 'aliases');
  });

  it('unpublishing removes the redirects, publishing brings them back, deleting removes them for good', async () => {
    await blog.actor.request('POST', postPath('settled', '/unpublish'), { blogId: blog.id });
    expect((await visit('/2019/05/moved-house/')).status).toBe(404);
    await blog.actor.request('POST', postPath('settled', '/publish'), { blogId: blog.id });
    expect((await visit('/2019/05/moved-house/')).status).toBe(301);
    const report = await t.folio.publisher.verify((await t.folio.repos.blogs.findById(blog.id))!);
    expect(report).toMatchObject({ missing: [], different: [], extra: [] });
    await blog.actor.request('DELETE', postPath('settled'), { blogId: blog.id });
    expect((await visit('/2019/05/moved-house/')).status).toBe(404);
    expect((await visit('/blog/moved/')).status).toBe(404);
    // The paths are free again.
    const again = await blog.actor.request('POST', '/v1/posts', { blogId: blog.id, body: { title: 'Other', content: 'x', aliases: ['/blog/moved/'] } });
    expect(again.status, again.text).toBe(201);
  });
});
