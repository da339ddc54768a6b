/**
 * The static search of the reader's site (issue 11, item 3), through the real app: publishing
 * keeps the index files beside the pages in step with the database (publish, edit, unpublish,
 * delete), the site server serves them and the page's script, never the writer's own state,
 * and a blog published before the static index existed gets one at its next change.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELTA_MAX, metaKey, stateKey } from '../../src/search/static/staticFormat.js';
import { queryTerms } from '../../src/search/tokenize.js';
import { matchingPaths, readStaticIndex, staticSearch } from '../support/staticSearchIndex.js';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { visit } from '../../bench/harness/visit.js';

describe('search on the static site', () => {
  let t: TestApp;
  let blogId: string;
  const HOST = 'finds.localhost:3000';
  const page = (path: string) => visit(t.baseUrl, HOST, path);
  // The static index follows a publish's answer (publish/stages/staticSearchQueue.ts): read once it has landed.
  const index = async () => {
    await t.folio.idle();
    return readStaticIndex(t.folio.store, 'finds');
  };
  const found = async (q: string) => matchingPaths(await index(), queryTerms(q));

  beforeAll(async () => {
    t = await startTestApp();
    blogId = (await t.request('POST', '/v1/blogs', { body: { slug: 'finds', name: 'Finds' } })).body.id;
    await t.folio.idle();
    await t.request('POST', '/v1/posts', {
      blogId,
      body: { title: '블로그를 시작하며', slug: 'start', content: '정적 사이트로 블로그를 만들었습니다.', tags: ['블로그'], status: 'published' },
    });
    await t.request('POST', '/v1/posts', {
      blogId,
      body: { title: 'Caching at the edge', slug: 'edge', content: 'A CDN keeps pages close to readers.', status: 'published' },
    });
    await t.request('POST', '/v1/posts', {
      blogId,
      body: { title: '비빔밥 만들기', slug: 'bibimbap', content: '비가 오는 날에는 비빔밥.', status: 'published' },
    });
    await t.folio.idle();
  });
  afterAll(async () => t.close());

  it('serves the page, its script and the index files; never the writer’s state', async () => {
    const html = (await page('/search/')).text;
    expect(html).toContain('<form id="search-form"');
    const script = /<script src="(\/assets\/search\.[0-9a-f]{8}\.js)" defer><\/script>/.exec(html)![1]!;
    const js = await page(script);
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.text).toContain('function queryTerms(');
    const meta = await page('/search/meta.json');
    expect(meta.status).toBe(200);
    expect(JSON.parse(meta.text)).toMatchObject({ format: 'folio-static-search', version: 3, docs: 3, dead: [] });
    // The three posts' lengths, which the postings no longer repeat.
    const lengths = await page('/search/l/0.json');
    expect(lengths.status).toBe(200);
    expect(JSON.parse(lengths.text)).toEqual([expect.any(Number), expect.any(Number), expect.any(Number)]);
    expect((await page('/_search/static-state.json')).status).toBe(404);
    expect(await t.folio.store.get(stateKey('finds'))).not.toBeNull();
  });

  it('finds posts by the API’s own words: particles stripped, whole words only', async () => {
    expect(await found('블로그')).toEqual(['/start']);
    expect(await found('블로그를')).toEqual(['/start']);
    expect(await found('비')).toEqual(['/bibimbap']);
    expect(await found('cdn readers')).toEqual(['/edge']);
    expect(await found('cdn 블로그')).toEqual([]);
  });

  it('follows edits, unpublishes and deletes, and keeps what a full rebuild writes', async () => {
    await t.request('PUT', '/v1/posts/edge', { blogId, body: { content: 'Purging keeps the edge fresh.' } });
    expect(await found('readers')).toEqual([]);
    expect(await found('purging')).toEqual(['/edge']);
    await t.request('POST', '/v1/posts/start/unpublish', { blogId });
    expect(await found('블로그')).toEqual([]);
    await t.request('DELETE', '/v1/posts/bibimbap', { blogId });
    expect(await found('비빔밥')).toEqual([]);
    const incremental = await index();
    expect(incremental.docs).toBe(1);

    await t.folio.publisher.reindex((await t.folio.repos.blogs.findById(blogId))!);
    expect(await index()).toEqual(incremental);
  });

  it('builds the index of a blog that has none at its next post change', async () => {
    // As a blog published before this release: no static index at all.
    for (const key of await t.folio.store.list('finds/search/')) if (key !== 'finds/search/index.html') await t.folio.store.delete(key);
    await t.folio.store.delete(stateKey('finds'));
    expect(await t.folio.store.get(metaKey('finds'))).toBeNull();
    await t.request('POST', '/v1/posts/start/publish', { blogId });
    expect((await index()).docs).toBe(2);
    expect(await found('블로그')).toEqual(['/start']);
    expect(await found('purging')).toEqual(['/edge']);
  });

  it('merges the delta after the publish that made it due, in the background', async () => {
    for (let i = 0; i <= DELTA_MAX; i++) {
      const res = await t.request('POST', '/v1/posts', {
        blogId,
        body: { title: `Harbour ${i}`, slug: `harbour-${i}`, content: `lamp${i % 4} harbour`, status: 'published' },
      });
      expect(res.status).toBe(201);
    }
    await t.folio.idle();
    const meta = JSON.parse((await t.folio.store.get(metaKey('finds')))!.body.toString()) as { delta: number; docs: number };
    expect(meta).toMatchObject({ delta: 0, docs: 2 + DELTA_MAX + 1 });
    expect(await t.folio.store.list('finds/search/x/')).toEqual([]);
    expect(await found('lamp3 harbour')).toHaveLength(16);
    const merged = await index();
    await t.folio.publisher.reindex((await t.folio.repos.blogs.findById(blogId))!);
    expect(await index()).toEqual(merged);
  });

  it('ranks as GET /v1/search does, the posts published since the merge (in the delta) included', async () => {
    await t.request('POST', '/v1/posts', { blogId, body: { title: 'Harbour lamps', slug: 'harbour-lamps', content: 'lamp1 harbour', status: 'published' } });
    await t.request('PUT', '/v1/posts/harbour-5', { blogId, body: { content: 'lamp1 harbour harbour, rewritten' } });
    await t.folio.idle();
    const meta = JSON.parse((await t.folio.store.get(metaKey('finds')))!.body.toString()) as { delta: number };
    expect(meta.delta).toBeGreaterThan(0);
    for (const q of ['harbour', 'lamp1 harbour', 'harbour 3']) {
      const api = await t.request('GET', `/v1/search?q=${encodeURIComponent(q)}&per_page=50`, { blogId });
      const fromApi = (api.body.data as { slug: string }[]).map((hit) => hit.slug);
      expect(await staticSearch(t.folio.store, 'finds', q, 0, 50), q).toEqual({ slugs: fromApi, total: api.body.pagination.total });
    }
  });

  it('goes with the blog when the blog is deleted', async () => {
    await t.request('DELETE', `/v1/blogs/${blogId}`);
    await t.folio.idle();
    expect(await t.folio.store.list('finds/')).toEqual([]);
    expect((await page('/search/meta.json')).status).toBe(404);
  });
});
