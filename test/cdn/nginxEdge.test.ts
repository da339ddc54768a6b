import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EdgeResponse } from '../../bench/harness/edgeRequest.js';
import { startEdgeFixture, type EdgeFixture } from '../support/edgeFixture.js';
import { startNginx, type NginxHandle } from '../support/nginx.js';
import type { TestApp } from '../support/testApp.js';

/**
 * The shipped deploy/nginx/folio.conf in Debian's nginx (with ngx_cache_purge), in front of a
 * real s3rver bucket, with Folio purging it (FOLIO_CDN=http-purge, FOLIO_CDN_PURGE_WHOLE=paths,
 * since that module has no host-wide ban). Every assertion reads through the cache.
 */

let f: EdgeFixture;
let nginx: NginxHandle;
let t: TestApp;
let blogId: string;
const edge = (path: string, options?: { host?: string; method?: string; from?: string }): Promise<EdgeResponse> => f.edge(path, options);
const cached = (path: string, hostHeader?: string): Promise<EdgeResponse> => f.cached(path, hostHeader);

beforeAll(async () => {
  f = await startEdgeFixture({ FOLIO_CDN_PURGE_WHOLE: 'paths' });
  t = f.t;
  nginx = await startNginx({ port: f.port, backends: f.backends });
  blogId = (await t.request('POST', '/v1/blogs', { body: { slug: 'edge', name: 'Edge of nginx' } })).body.id;
  await t.folio.idle();
  await t.request('POST', '/v1/posts', { blogId, body: { title: 'First light', content: 'The first words.', status: 'published' } });
}, 60_000);

afterAll(async () => {
  await nginx?.stop();
  await f?.close();
});

describe('deploy/nginx/folio.conf in front of the bucket', () => {
  it('serves a blog by Host from its prefix, with the blog’s 404 page as 404, and never internal objects', async () => {
    const home = await edge('/');
    expect(home.status, `${home.text}\n${nginx.errors()}`).toBe(200);
    expect(home.text).toContain('First light');
    expect(home.headers['cache-control']).toBe('public, max-age=60, s-maxage=86400');
    expect(Object.keys(home.headers).filter((h) => h.startsWith('x-amz-'))).toEqual([]);
    expect((await edge('/')).headers['x-cache']).toBe('HIT');
    for (const path of ['/first-light', '/first-light/', '/rss.xml']) expect((await edge(path)).status, path).toBe(200);
    const missing = await edge('/no-such-post');
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('Edge of nginx');
    for (const path of ['/_search/manifest.json', '/%5fsearch/manifest.json', '/.env']) expect((await edge(path)).status, path).toBe(404);
    expect((await edge('/', { host: `nobody.localhost:${nginx.port}` })).status).toBe(404);
  });

  it('serves a post’s Markdown twin as text/markdown, cached, and a rename purges and removes the old one', async () => {
    await t.request('POST', '/v1/posts', { blogId, body: { title: 'Twin light', content: 'Twin words.', status: 'published' } });
    const twin = await cached('/twin-light.md');
    expect(twin.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(twin.text).toMatch(/^# Twin light\n\nCanonical: <[^>]*\/twin-light>\n\nTwin words\.\n$/);
    await t.request('PUT', '/v1/posts/twin-light', { blogId, body: { slug: 'twin-moved' } });
    expect((await edge('/twin-light.md')).status).toBe(404);
    expect((await edge('/twin-moved.md')).headers['content-type']).toBe('text/markdown; charset=utf-8');
    await t.request('DELETE', '/v1/posts/twin-moved', { blogId });
    expect((await edge('/twin-moved.md')).status).toBe(404);
  });

  it('publish, edit and unpublish are visible through the cache as soon as the API answered', async () => {
    await cached('/');
    await t.request('POST', '/v1/posts', { blogId, body: { title: 'Second light', content: 'Newer words.', status: 'published' } });
    expect((await edge('/')).text).toContain('Second light');

    await cached('/first-light');
    await t.request('PUT', '/v1/posts/first-light', { blogId, body: { content: 'Edited words.' } });
    expect((await edge('/first-light')).text).toContain('Edited words.');
    expect((await edge('/first-light/')).text).toContain('Edited words.');

    await cached('/second-light');
    await t.request('POST', '/v1/posts/second-light/unpublish', { blogId });
    expect((await edge('/second-light')).status).toBe(404);
  });

  it('a renamed slug serves the redirect page pointing at the new address', async () => {
    await t.request('POST', '/v1/posts/second-light/publish', { blogId });
    await cached('/second-light');
    await t.request('PUT', '/v1/posts/second-light', { blogId, body: { slug: 'dusk' } });
    const old = await edge('/second-light');
    expect(old.text).toMatch(/http-equiv="refresh" content="0; ?url=\/dusk"/);
    expect((await edge('/dusk')).text).toContain('Newer words.');
  });

  it("a post's alias serves the same redirect page, and is gone once the alias is removed", async () => {
    await cached('/2019/05/old-dusk/');
    expect((await t.request('PUT', '/v1/posts/dusk', { blogId, body: { aliases: ['/2019/05/old-dusk/'] } })).status).toBe(200);
    expect((await edge('/2019/05/old-dusk')).text).toMatch(/http-equiv="refresh" content="0; ?url=\/dusk"/);
    expect((await t.request('PUT', '/v1/posts/dusk', { blogId, body: { aliases: [] } })).status).toBe(200);
    expect((await edge('/2019/05/old-dusk/')).status).toBe(404);
  });

  it('a theme change and a blog delete are visible once their job completed (every path purged)', async () => {
    await cached('/');
    await cached('/first-light');
    await t.request('PUT', `/v1/blogs/${blogId}`, { body: { theme_config: { customCss: 'body{color:#123456}' } } });
    await t.folio.idle();
    expect((await edge('/first-light')).text).toContain('#123456');

    await cached('/first-light');
    await t.request('DELETE', `/v1/blogs/${blogId}`);
    await t.folio.idle();
    expect((await edge('/first-light')).status).toBe(404);
    expect((await edge('/')).status).toBe(404);
  });

  it('takes PURGE only from the addresses it names', async () => {
    expect((await edge('/x', { method: 'PURGE', from: '127.0.0.2' })).status).toBe(403);
    expect((await edge('/', { method: 'POST' })).status).toBe(405);
  });
});
