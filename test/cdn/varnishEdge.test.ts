import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/testApp.js';
import type { EdgeResponse } from '../../bench/harness/edgeRequest.js';
import { startEdgeFixture, type EdgeFixture } from '../support/edgeFixture.js';
import { shippedVclFor, startVarnish, type VarnishHandle } from '../../bench/harness/varnish.js';

/**
 * The shipped deploy/varnish/folio.vcl in a real varnishd, in front of a real s3rver bucket,
 * with the real Folio app writing into that bucket and purging Varnish (FOLIO_CDN=http-purge).
 * Every assertion reads through the cache: what was cached is a hit before the change, and the
 * change is visible as soon as the API answered (post jobs) or the job completed (whole blog).
 */

let f: EdgeFixture;
let varnish: VarnishHandle;
let t: TestApp;
let blogId: string;
const edge = (path: string, options?: { host?: string; method?: string; from?: string }): Promise<EdgeResponse> => f.edge(path, options);
const cached = (path: string, hostHeader?: string): Promise<EdgeResponse> => f.cached(path, hostHeader);

beforeAll(async () => {
  f = await startEdgeFixture();
  t = f.t;
  varnish = await startVarnish({ port: f.port, vcl: shippedVclFor(f.backends) });
  blogId = (await t.request('POST', '/v1/blogs', { body: { slug: 'edge', name: 'Edge of the cache' } })).body.id;
  await t.folio.idle();
  await t.request('POST', '/v1/posts', { blogId, body: { title: 'First light', content: 'The first words.', tags: ['sky'], status: 'published' } });
}, 60_000);

afterAll(async () => {
  await varnish?.stop();
  await f?.close();
});

describe('deploy/varnish/folio.vcl in front of the bucket', () => {
  it('serves a blog by Host from its prefix: / , /x and /x/, files, with the page headers and no S3 headers', async () => {
    const home = await edge('/');
    expect(home.status).toBe(200);
    expect(home.headers['x-cache']).toBe('MISS');
    expect(home.text).toContain('First light');
    expect(home.headers['content-type']).toMatch(/^text\/html/);
    expect(home.headers['cache-control']).toBe('public, max-age=60, s-maxage=86400');
    expect(Object.keys(home.headers).filter((h) => h.startsWith('x-amz-') || h === 'server' || h === 'x-folio-host')).toEqual([]);
    expect((await edge('/')).headers['x-cache']).toBe('HIT');

    for (const path of ['/first-light', '/first-light/', '//first-light', '/first-light?utm=x']) {
      const page = await edge(path);
      expect(page.status, path).toBe(200);
      expect(page.text).toContain('The first words.');
    }
    const feed = await edge('/rss.xml');
    expect(feed.status).toBe(200);
    expect(feed.headers['content-type']).toMatch(/xml/);
    expect(feed.text).toContain('First light');
    expect((await edge('/tags/sky')).text).toContain('First light');
  });

  it('serves a post’s Markdown twin from the bucket as text/markdown, cached, and an edit purges it', async () => {
    const twin = await edge('/first-light.md');
    expect(twin.status).toBe(200);
    expect(twin.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(twin.text).toMatch(/^# First light\n\nCanonical: <http:\/\/edge\.localhost[^>]*\/first-light>\n\nThe first words\.\n$/);
    expect((await edge('/first-light.md')).headers['x-cache']).toBe('HIT');
    await t.request('PUT', '/v1/posts/first-light', { blogId, body: { content: 'The first words, revised.' } });
    const after = await edge('/first-light.md');
    expect(after.headers['x-cache']).toBe('MISS');
    expect(after.text).toContain('The first words, revised.');
    await t.request('PUT', '/v1/posts/first-light', { blogId, body: { content: 'The first words.' } });
  });

  it('answers missing pages with the blog’s 404 page and status 404, and never serves internal objects', async () => {
    const missing = await edge('/no-such-post');
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('Edge of the cache');
    expect(missing.headers['content-type']).toMatch(/^text\/html/);
    for (const path of ['/_search/manifest.json', '/%5fsearch/manifest.json', '/%2e%2e/edge/index.html', '/a/../index.html', '/.env']) {
      const res = await edge(path);
      expect(res.status, path).toBe(404);
      expect(res.text, path).not.toContain('"segments"');
    }
    const nobody = await edge('/', { host: `nobody.localhost:${varnish.port}` });
    expect(nobody.status).toBe(404);
  });

  it('a publish is visible through the cache as soon as the API answered', async () => {
    expect((await cached('/')).text).not.toContain('Second light');
    const created = await t.request('POST', '/v1/posts', { blogId, body: { title: 'Second light', content: 'Newer words.', status: 'published' } });
    expect(created.status).toBe(201);
    const home = await edge('/');
    expect(home.headers['x-cache']).toBe('MISS');
    expect(home.text).toContain('Second light');
    expect((await edge('/second-light')).status).toBe(200);
  });

  it('an edit is visible through the cache as soon as the API answered', async () => {
    expect((await cached('/first-light')).text).toContain('The first words.');
    expect((await t.request('PUT', '/v1/posts/first-light', { blogId, body: { content: 'Edited words.' } })).status).toBe(200);
    const page = await edge('/first-light');
    expect(page.text).toContain('Edited words.');
    expect((await edge('/first-light/')).text).toContain('Edited words.');
  });

  it('a renamed slug answers 301 to the new address through the cache', async () => {
    await cached('/second-light');
    expect((await t.request('PUT', '/v1/posts/second-light', { blogId, body: { slug: 'dusk' } })).status).toBe(200);
    const old = await edge('/second-light');
    expect(old.status).toBe(301);
    expect(old.headers.location).toMatch(/\/dusk$/);
    expect((await edge('/dusk')).text).toContain('Newer words.');
  });

  it("a post's aliases answer 301 to it through the cache, and an alias removed is gone as soon as the API answered", async () => {
    // Cached as misses first: the purge must reach them.
    expect((await cached('/2019/05/old-dusk/')).status).toBe(404);
    await cached('/2019/05/01/old-dusk.html');
    const res = await t.request('PUT', '/v1/posts/dusk', { blogId, body: { aliases: ['/2019/05/old-dusk/', '/2019/05/01/old-dusk.html'] } });
    expect(res.status, res.text).toBe(200);
    for (const path of ['/2019/05/old-dusk', '/2019/05/old-dusk/', '/2019/05/01/old-dusk.html']) {
      const old = await edge(path);
      expect(old.status, path).toBe(301);
      expect(old.headers.location, path).toMatch(/\/dusk$/);
    }
    await cached('/2019/05/old-dusk/');
    expect((await t.request('PUT', '/v1/posts/dusk', { blogId, body: { aliases: ['/2019/05/01/old-dusk.html'] } })).status).toBe(200);
    expect((await edge('/2019/05/old-dusk/')).status).toBe(404);
    expect((await edge('/2019/05/01/old-dusk.html')).status).toBe(301);
  });

  it('an unpublished post is gone from the cache as soon as the API answered', async () => {
    await cached('/dusk');
    expect((await t.request('POST', '/v1/posts/dusk/unpublish', { blogId })).status).toBe(200);
    const gone = await edge('/dusk');
    expect(gone.status).toBe(404);
    expect(gone.text).not.toContain('Newer words.');
    expect((await edge('/')).text).not.toContain('Second light');
    // Its aliases go with it.
    expect((await edge('/2019/05/01/old-dusk.html')).status).toBe(404);
  });

  it('a theme change is visible on every page once its job completed', async () => {
    await cached('/');
    await cached('/first-light');
    await t.request('PUT', `/v1/blogs/${blogId}`, { body: { theme_config: { customCss: 'body{color:#123456}' } } });
    await t.folio.idle();
    expect((await edge('/')).text).toContain('#123456');
    expect((await edge('/first-light')).text).toContain('#123456');
  });

  it('serves an active custom domain through Folio’s site server, cached and purged like the subdomain', async () => {
    const registration = (await t.request('POST', `/v1/blogs/${blogId}/domain`, { body: { hostname: 'edge.example.com' } })).body;
    t.satisfyDomainChallenge(registration);
    expect((await t.request('GET', `/v1/blogs/${blogId}/domain`)).body.status).toBe('active');
    await t.folio.idle();

    expect((await cached('/', 'edge.example.com')).text).toContain('First light');
    await t.request('POST', '/v1/posts', { blogId, body: { title: 'Third light', content: 'On the domain.', status: 'published' } });
    expect((await edge('/', { host: 'edge.example.com' })).text).toContain('Third light');
    expect((await edge('/third-light', { host: 'edge.example.com' })).text).toContain('On the domain.');
    // A host that is no blog reaches Folio, which answers from its API: never cached.
    await edge('/', { host: 'stranger.example.net' });
    expect((await edge('/', { host: 'stranger.example.net' })).headers['x-cache']).toBe('MISS');
  });

  it('takes PURGE and BAN only from the addresses in its ACL', async () => {
    await cached('/first-light');
    expect((await edge('/first-light', { method: 'PURGE', from: '127.0.0.2' })).status).toBe(403);
    expect((await edge('/', { method: 'BAN', from: '127.0.0.2' })).status).toBe(403);
    expect((await edge('/first-light')).headers['x-cache']).toBe('HIT');
    expect((await edge('/first-light', { method: 'PURGE' })).status).toBe(200);
    expect((await edge('/first-light')).headers['x-cache']).toBe('MISS');
    expect((await edge('/', { method: 'POST' })).status).toBe(405);
  });

  it('a deleted blog is gone from the cache once its job completed', async () => {
    await cached('/');
    await cached('/first-light');
    expect((await t.request('DELETE', `/v1/blogs/${blogId}`)).status).toBe(200);
    await t.folio.idle();
    expect((await edge('/')).status).toBe(404);
    expect((await edge('/first-light')).status).toBe(404);
    expect((await edge('/', { host: 'edge.example.com' })).status).toBe(404);
  });
});
