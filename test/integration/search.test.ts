import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { S3SiteStore } from '../../src/storage/s3SiteStore.js';
import { createTestBucket } from '../../bench/harness/s3rver.js';
import { freshDataEnv, startTestApp, type TestApp } from '../support/testApp.js';
import { testTempDir } from '../support/tempDir.js';

const slugs = (res: { body: { data: { slug: string }[] } }) => res.body.data.map((hit) => hit.slug);

describe('GET /v1/search reflects every lifecycle operation as soon as it answers', () => {
  let t: TestApp;
  let blogId: string;
  const search = (q: string, extra = '') => t.request('GET', `/v1/search?q=${encodeURIComponent(q)}${extra}`, { blogId });

  beforeAll(async () => {
    t = await startTestApp();
    blogId = (await t.request('POST', '/v1/blogs', { body: { slug: 'findme', name: 'Find me' } })).body.id;
  });
  afterAll(async () => t.close());

  it('finds a post right after publish, including a Korean word written with a particle', async () => {
    await t.request('POST', '/v1/posts', {
      blogId,
      body: { title: '비 오는 날', content: '오늘은 비가 와서 블로그를 썼다. SQLite에서 색인을 만든다.', tags: ['일상'] },
    });
    expect(slugs(await search('블로그'))).toEqual([]);
    await t.request('POST', `/v1/posts/${encodeURIComponent('비-오는-날')}/publish`, { blogId });
    const res = await search('블로그');
    expect(res.status).toBe(200);
    expect(slugs(res)).toEqual(['비-오는-날']);
    expect(Object.keys(res.body.data[0]).sort()).toEqual(['created_at', 'meta_description', 'published_at', 'slug', 'tags', 'title', 'url']);
    expect(res.body.data[0].url).toBe(`http://findme.localhost:3000/${encodeURIComponent('비-오는-날')}`);
    expect(res.body.pagination).toEqual({ page: 1, per_page: 20, total: 1, total_pages: 1 });
    expect(slugs(await search('sqlite'))).toEqual(['비-오는-날']);
    expect(slugs(await search('비'))).toEqual(['비-오는-날']);
  });

  it('a full rebuild with the search index (folio site rebuild) indexes the Markdown of every post', async () => {
    const body = { title: 'Rebuilt', content: 'The word zebracorn sits in the body only.', meta: { description: 'A short summary.' }, status: 'published' };
    expect((await t.request('POST', '/v1/posts', { blogId, body })).status).toBe(201);
    const blog = (await t.folio.repos.blogs.findById(blogId))!;
    await t.folio.store.deleteMany(await t.folio.store.list('findme/_search/'));
    await t.folio.publisher.rebuild(blog, { withSearch: true });
    expect(slugs(await search('zebracorn'))).toEqual(['rebuilt']);
    expect(slugs(await search('블로그'))).toEqual(['비-오는-날']);
    await t.request('DELETE', '/v1/posts/rebuilt', { blogId });
    expect(slugs(await search('zebracorn'))).toEqual([]);
  });

  it('finds words that occur only in code blocks, after publish and after a full rebuild, ranked below prose', async () => {
    const code = { title: 'Health check', content: 'After a release:\n\n```sh\ncurl -fsS https://example.com/healthz\n```', status: 'published' };
    const prose = { title: 'Tools', content: 'I use curl every day, and curl is enough.', status: 'published' };
    expect((await t.request('POST', '/v1/posts', { blogId, body: code })).status).toBe(201);
    expect((await t.request('POST', '/v1/posts', { blogId, body: prose })).status).toBe(201);
    expect(slugs(await search('curl'))).toEqual(['tools', 'health-check']);
    expect(slugs(await search('healthz'))).toEqual(['health-check']);
    const blog = (await t.folio.repos.blogs.findById(blogId))!;
    await t.folio.publisher.rebuild(blog, { withSearch: true });
    expect(slugs(await search('curl healthz'))).toEqual(['health-check']);
    for (const slug of ['health-check', 'tools']) await t.request('DELETE', `/v1/posts/${slug}`, { blogId });
  });

  it('sees an edit of a published post at once, and forgets the old words', async () => {
    await t.request('PUT', `/v1/posts/${encodeURIComponent('비-오는-날')}`, { blogId, body: { content: '맑은 날에는 산책을 한다.' } });
    expect(slugs(await search('블로그'))).toEqual([]);
    expect(slugs(await search('산책'))).toEqual(['비-오는-날']);
  });

  it('drops a post on unpublish and on delete, and ANDs all words', async () => {
    await t.request('POST', '/v1/posts', { blogId, body: { title: 'Koa and SQLite', content: 'A small server with Koa and SQLite.', status: 'published' } });
    await t.request('POST', '/v1/posts', { blogId, body: { title: 'Only Koa', content: 'Koa middleware.', status: 'published' } });
    expect(slugs(await search('koa sqlite'))).toEqual(['koa-and-sqlite']);
    expect(slugs(await search('koa')).sort()).toEqual(['koa-and-sqlite', 'only-koa']);
    await t.request('POST', '/v1/posts/only-koa/unpublish', { blogId });
    expect(slugs(await search('koa'))).toEqual(['koa-and-sqlite']);
    await t.request('DELETE', '/v1/posts/koa-and-sqlite', { blogId });
    expect(slugs(await search('koa'))).toEqual([]);
  });

  it('pages results with exact totals; a page past the end is empty; a query of only symbols is empty', async () => {
    for (let i = 0; i < 5; i += 1) {
      await t.request('POST', '/v1/posts', { blogId, body: { title: `Paging ${i}`, content: 'pagination words here', status: 'published' } });
      t.clock.advance(1000);
    }
    const first = await search('pagination', '&per_page=2');
    expect(first.body.pagination).toEqual({ page: 1, per_page: 2, total: 5, total_pages: 3 });
    // Same relevance: newest published first.
    expect(slugs(first)).toEqual(['paging-4', 'paging-3']);
    const last = await search('pagination', '&per_page=2&page=3');
    expect(slugs(last)).toEqual(['paging-0']);
    const beyond = await search('pagination', '&per_page=2&page=9');
    expect(beyond.body).toEqual({ data: [], pagination: { page: 9, per_page: 2, total: 5, total_pages: 3 } });
    const symbols = await search('+ ~ ^ *');
    expect(symbols.status).toBe(200);
    expect(symbols.body.data).toEqual([]);
    expect((await search('c++ title:x node.js')).status).toBe(200);
  });

  it('answers 400 naming q when it is missing', async () => {
    const res = await t.request('GET', '/v1/search', { blogId });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('bad_request');
    expect(res.body.message).toContain('q is required');
  });
});

describe('search index in the S3 store', () => {
  it('is written to the bucket, and a restarted server answers from it', async () => {
    const { client, bucket } = await createTestBucket(inject('s3Endpoint'));
    const dataDir = testTempDir('folio-search-s3-');
    const env = await freshDataEnv(dataDir);
    const first = await startTestApp({ dataDir, env, store: new S3SiteStore({ client, bucket }) });
    const blogId = (await first.request('POST', '/v1/blogs', { body: { slug: 's3search', name: 'S3 search' } })).body.id;
    await first.request('POST', '/v1/posts', { blogId, body: { title: '서버 설정', content: '서버를 설정하는 방법을 정리했다.', status: 'published' } });
    const store = new S3SiteStore({ client, bucket });
    expect((await store.list('s3search/_search/')).length).toBeGreaterThan(0);
    const apiKey = first.key;
    await first.close();

    const second = await startTestApp({ dataDir, env, store: new S3SiteStore({ client, bucket }) });
    try {
      const res = await second.request('GET', `/v1/search?q=${encodeURIComponent('서버')}`, { blogId, key: apiKey });
      expect(res.status).toBe(200);
      expect(res.body.data.map((h: { slug: string }) => h.slug)).toEqual(['서버-설정']);
    } finally {
      await second.close();
    }
  });
});
