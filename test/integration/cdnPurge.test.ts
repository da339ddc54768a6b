import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { allPublicPathsOf, publicPaths, publicPathsOf } from '../../src/publish/publicPaths.js';
import { keyForPath } from '../../src/http/siteServer.js';
import { CACHE_CONTROL_PAGE, CACHE_CONTROL_PAGE_PURGED } from '../../src/domain/cacheHeaders.js';
import { startRecordingServer, type RecordingServer } from '../support/recordingServer.js';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { visit } from '../../bench/harness/visit.js';
import { withLoopTurns } from '../support/loopTurns.js';

/**
 * The purge step of publish jobs, with FOLIO_CDN=http-purge pointing at a loopback server that
 * records what a cache would be sent (deploy/varnish's tests run the same against a real
 * varnishd). Post jobs run before the API answers, so their purges are sent by then; whole-blog
 * jobs run in the background and purge before they complete.
 */
describe('CDN purge as a step of every publish job', () => {
  let cache: RecordingServer;
  let t: TestApp;
  let blogId: string;
  const HOST = 'edge.localhost:3000';
  const sent = (): string[] => cache.requests.map((r) => `${r.method} ${String(r.headers.host)} ${r.url}`);

  beforeAll(async () => {
    cache = await startRecordingServer({ anyMethod: true });
    t = await startTestApp({ env: { FOLIO_CDN: 'http-purge', FOLIO_CDN_PURGE_URL: cache.url } });
    blogId = (await t.request('POST', '/v1/blogs', { body: { slug: 'edge', name: 'Edge' } })).body.id;
    await t.folio.idle();
  });
  afterAll(async () => {
    await t.close();
    await cache.close();
  });
  beforeEach(() => {
    cache.requests.length = 0;
    cache.respond = () => ({ status: 200 });
  });

  it('publishing a post purges its page under both addresses and every list that shows it by the time the API answers, and the static search files once they land', async () => {
    const created = await t.request('POST', '/v1/posts', {
      blogId,
      body: { title: 'First light', content: 'Hello, edge.', tags: ['sky'], status: 'published' },
    });
    expect(created.status).toBe(201);
    expect(sent()).toEqual(
      expect.arrayContaining([
        `PURGE ${HOST} /first-light`,
        `PURGE ${HOST} /first-light/`,
        // Its Markdown twin, and llms.txt that lists it.
        `PURGE ${HOST} /first-light.md`,
        `PURGE ${HOST} /llms.txt`,
        `PURGE ${HOST} /`,
        `PURGE ${HOST} /rss.xml`,
        `PURGE ${HOST} /feed.json`,
        `PURGE ${HOST} /tags/sky`,
      ]),
    );
    // The static search index follows the answer (publish/stages/staticSearchQueue.ts) and
    // changes in place too: its meta.json and the post's fragment, purged when they land.
    await t.folio.idle();
    expect(sent()).toEqual(expect.arrayContaining([`PURGE ${HOST} /search/meta.json`, `PURGE ${HOST} /search/d/0.json`]));
    // The post's words: into the delta (search/x/) of the index the blog's creation laid out.
    expect(sent().some((line) => /^PURGE \S+ \/search\/[tx]\/\d+\.json$/.test(line))).toBe(true);
    // Internal objects (the search index) are never served, so never purged.
    expect(sent().some((line) => line.includes(' /_'))).toBe(false);
  });

  it('serves HTML with a day at the edge and a minute in browsers when a purger is configured', async () => {
    const page = await visit(t.baseUrl, HOST, '/first-light');
    expect(page.status).toBe(200);
    expect(page.headers['cache-control']).toBe(CACHE_CONTROL_PAGE_PURGED);
    expect(CACHE_CONTROL_PAGE_PURGED).toMatch(/s-maxage=(\d+)/);
    expect(Number(/s-maxage=(\d+)/.exec(CACHE_CONTROL_PAGE_PURGED)![1])).toBeGreaterThanOrEqual(86_400);
    expect(CACHE_CONTROL_PAGE_PURGED).not.toContain('stale-while-revalidate');
  });

  it('an edit purges what changed and leaves other posts’ pages cached', async () => {
    await t.request('POST', '/v1/posts', { blogId, body: { title: 'Other', content: 'Another post.', status: 'published' } });
    cache.requests.length = 0;
    await t.request('PUT', '/v1/posts/first-light', { blogId, body: { content: 'Hello again, edge.' } });
    expect(sent()).toEqual(expect.arrayContaining([`PURGE ${HOST} /first-light`, `PURGE ${HOST} /first-light/`, `PURGE ${HOST} /first-light.md`]));
    expect(sent()).not.toContain(`PURGE ${HOST} /other`);
    expect(sent()).not.toContain(`PURGE ${HOST} /other.md`);
  });

  it('a renamed slug purges the new page and the old address, which is now a redirect', async () => {
    await t.request('PUT', '/v1/posts/first-light', { blogId, body: { slug: 'dawn' } });
    expect(sent()).toEqual(
      expect.arrayContaining([
        `PURGE ${HOST} /dawn`,
        `PURGE ${HOST} /dawn.md`,
        `PURGE ${HOST} /first-light`,
        `PURGE ${HOST} /first-light/`,
        `PURGE ${HOST} /first-light.md`,
      ]),
    );
    expect((await visit(t.baseUrl, HOST, '/first-light')).status).toBe(301);
    // The old twin is gone, not redirected (publish/pages/postTwins.ts).
    expect((await visit(t.baseUrl, HOST, '/first-light.md')).status).toBe(404);
  });

  it('unpublishing purges the page and its old addresses', async () => {
    await t.request('POST', '/v1/posts/dawn/unpublish', { blogId });
    expect(sent()).toEqual(
      expect.arrayContaining([`PURGE ${HOST} /dawn`, `PURGE ${HOST} /dawn/`, `PURGE ${HOST} /dawn.md`, `PURGE ${HOST} /first-light`, `PURGE ${HOST} /`]),
    );
    expect((await visit(t.baseUrl, HOST, '/dawn')).status).toBe(404);
    expect((await visit(t.baseUrl, HOST, '/dawn.md')).status).toBe(404);
  });

  it('a theme change bans everything of the blog’s host once its job ran', async () => {
    await t.request('PUT', `/v1/blogs/${blogId}`, { body: { theme_config: { customCss: 'body{color:#123456}' } } });
    await t.folio.idle();
    expect(sent()).toContain(`BAN ${HOST} /`);
  });

  it('an active custom domain is purged too, and removing it bans the former host', async () => {
    const registration = (await t.request('POST', `/v1/blogs/${blogId}/domain`, { body: { hostname: 'edge.example.com' } })).body;
    t.satisfyDomainChallenge(registration);
    expect((await t.request('GET', `/v1/blogs/${blogId}/domain`)).body.status).toBe('active');
    await t.folio.idle();
    expect(sent()).toEqual(expect.arrayContaining([`BAN ${HOST} /`, 'BAN edge.example.com /']));

    cache.requests.length = 0;
    await t.request('POST', '/v1/posts', { blogId, body: { title: 'Both hosts', content: 'x', status: 'published' } });
    expect(sent()).toEqual(expect.arrayContaining([`PURGE ${HOST} /both-hosts`, 'PURGE edge.example.com /both-hosts']));

    cache.requests.length = 0;
    await t.request('DELETE', `/v1/blogs/${blogId}/domain`);
    await t.folio.idle();
    expect(sent()).toEqual(expect.arrayContaining([`BAN ${HOST} /`, 'BAN edge.example.com /']));
  });

  it('a purge that fails leaves the job pending; its retry purges everything the job rendered', async () => {
    cache.respond = () => ({ status: 503 });
    const created = await t.request('POST', '/v1/posts', { blogId, body: { title: 'Stormy', content: 'Cache is down.', status: 'published' } });
    expect(created.status).toBe(201);
    const status = (await t.request('GET', `/v1/blogs/${blogId}/publishing`)).body;
    expect(status.pending).toBe(1);
    expect(status.jobs[0].last_error).toMatch(/PURGE .* answered 503/);
    // The store already has the page: only the edge is behind.
    expect((await visit(t.baseUrl, HOST, '/stormy')).status).toBe(200);

    cache.requests.length = 0;
    cache.respond = () => ({ status: 200 });
    t.clock.advance(5_000);
    expect(await t.folio.runner.runDue()).toBe(1);
    expect((await t.request('GET', `/v1/blogs/${blogId}/publishing`)).body.pending).toBe(0);
    // Nothing changed in the store on the retry, and still the page and its lists are purged.
    expect(sent()).toEqual(
      expect.arrayContaining([`PURGE ${HOST} /stormy`, `PURGE ${HOST} /stormy/`, `PURGE ${HOST} /stormy.md`, `PURGE ${HOST} /`, `PURGE ${HOST} /rss.xml`]),
    );
  });

  it('every purged path maps back to the object it was derived from (the site server’s mapping)', async () => {
    const keys = await t.folio.store.list('edge/');
    expect(keys.length).toBeGreaterThan(10);
    let paths = 0;
    for (const key of keys) {
      for (const path of publicPaths('edge', key)) {
        paths++;
        expect(keyForPath(path), path).toBe(key.slice('edge/'.length));
      }
      if (!key.startsWith('edge/_')) expect(publicPaths('edge', key).length, key).toBeGreaterThan(0);
    }
    expect(paths).toBeGreaterThan(keys.length);
  });

  it('deleting the blog bans its host before the slug is released', async () => {
    await t.request('DELETE', `/v1/blogs/${blogId}`);
    await t.folio.idle();
    expect(sent()).toContain(`BAN ${HOST} /`);
  });
});

describe('FOLIO_CDN_PURGE_WHOLE=paths (caches without host-wide bans)', () => {
  it('a whole-blog change purges every page path; a blog delete whose purge failed still purges them on its retry', async () => {
    const cache = await startRecordingServer({ anyMethod: true });
    const t = await startTestApp({ env: { FOLIO_CDN: 'http-purge', FOLIO_CDN_PURGE_URL: cache.url, FOLIO_CDN_PURGE_WHOLE: 'paths' } });
    const sent = (): string[] => cache.requests.map((r) => `${r.method} ${String(r.headers.host)} ${r.url}`);
    try {
      const blogId = (await t.request('POST', '/v1/blogs', { body: { slug: 'wide', name: 'Wide' } })).body.id;
      await t.request('POST', '/v1/posts', { blogId, body: { title: 'Kept page', content: 'x', status: 'published' } });
      cache.requests.length = 0;
      await t.request('PUT', `/v1/blogs/${blogId}`, { body: { theme_config: { customCss: 'body{color:#654321}' } } });
      await t.folio.idle();
      expect(sent()).toEqual(
        expect.arrayContaining([
          'PURGE wide.localhost:3000 /',
          'PURGE wide.localhost:3000 /kept-page',
          'PURGE wide.localhost:3000 /kept-page/',
          'PURGE wide.localhost:3000 /rss.xml',
        ]),
      );
      expect(sent().some((line) => line.startsWith('BAN'))).toBe(false);

      cache.respond = () => ({ status: 500 });
      await t.request('DELETE', `/v1/blogs/${blogId}`);
      await t.folio.idle();
      expect((await t.request('GET', `/v1/blogs/${blogId}/publishing`)).status).toBe(404);
      // The objects are gone from the store, the purge failed: the slug stays reserved.
      expect(await t.folio.store.list('wide/')).toEqual([]);
      expect((await t.request('POST', '/v1/blogs', { body: { slug: 'wide', name: 'Too soon' } })).status).toBe(409);

      cache.requests.length = 0;
      cache.respond = () => ({ status: 200 });
      t.clock.advance(10_000);
      await t.folio.runner.runDue();
      expect(sent()).toEqual(expect.arrayContaining(['PURGE wide.localhost:3000 /', 'PURGE wide.localhost:3000 /kept-page']));
      expect((await t.request('POST', '/v1/blogs', { body: { slug: 'wide', name: 'Now' } })).status).toBe(201);
    } finally {
      await t.close();
      await cache.close();
    }
  });
});

describe('without a CDN', () => {
  it('keeps HTML short-lived at shared caches and sends no purges', async () => {
    const cache = await startRecordingServer({ anyMethod: true });
    const t = await startTestApp();
    try {
      const blogId = (await t.request('POST', '/v1/blogs', { body: { slug: 'plain', name: 'Plain' } })).body.id;
      await t.request('POST', '/v1/posts', { blogId, body: { title: 'Hi', content: 'x', status: 'published' } });
      const page = await visit(t.baseUrl, 'plain.localhost:3000', '/hi');
      expect(page.headers['cache-control']).toBe(CACHE_CONTROL_PAGE);
      expect(cache.requests).toEqual([]);
    } finally {
      await t.close();
      await cache.close();
    }
  });
});

describe('publicPaths', () => {
  it('maps keys to the addresses readers use', () => {
    expect(publicPaths('b', 'b/index.html')).toEqual(['/']);
    expect(publicPaths('b', 'b/hello/index.html')).toEqual(['/hello', '/hello/']);
    expect(publicPaths('b', 'b/tags/c++/index.html')).toEqual(['/tags/c%2B%2B', '/tags/c%2B%2B/']);
    expect(publicPaths('b', 'b/page/2/index.html')).toEqual(['/page/2', '/page/2/']);
    expect(publicPaths('b', 'b/rss.xml')).toEqual(['/rss.xml']);
    expect(publicPaths('b', 'b/hello.md')).toEqual(['/hello.md']);
    expect(publicPaths('b', 'b/정적.md')).toEqual(['/%EC%A0%95%EC%A0%81.md']);
    expect(keyForPath('/%EC%A0%95%EC%A0%81.md')).toBe('정적.md');
    expect(publicPaths('b', 'b/_search/manifest.json')).toEqual([]);
    expect(publicPaths('b', 'bb/index.html')).toEqual([]);
    expect(publicPaths('b', '_domains/b.example.com')).toEqual([]);
  });
});

describe('allPublicPathsOf', () => {
  it('gives what publicPathsOf gives for a whole blog, letting other work run meanwhile', async () => {
    const keys: string[] = ['b/index.html', 'b/rss.xml', 'b/_search/manifest.json', 'b/tags/c++/index.html'];
    for (let i = 0; i < 60_000; i++) keys.push(`b/post-${i}/index.html`, `b/page/${i % 3000}/index.html`);
    const { result: paths, turns } = await withLoopTurns(() => allPublicPathsOf('b', keys));
    expect(paths).toEqual(publicPathsOf('b', keys));
    expect(paths).toHaveLength(1 + 1 + 2 + 60_000 * 2 + 3000 * 2);
    // 120,000 keys take longer than one 8 ms slice on any machine this runs on.
    expect(turns).toBeGreaterThan(1);
  });
});
