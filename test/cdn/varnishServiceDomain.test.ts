/**
 * Issue 27 B11: deploy/varnish/folio.vcl took blogs only at `<slug>.localhost`, so on a real
 * domain every blog request went to Folio instead of the bucket. The VCL now reads the service
 * domain from varnishd's environment (FOLIO_SERVICE_DOMAIN, as Folio does). Here the domain is
 * `blogs.example.org` and Varnish's Folio backend is a closed port: a blog host served at all
 * was served from the bucket, and anything routed to Folio answers 503.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../bench/harness/ports.js';
import { shippedVclFor, startVarnish, type VarnishHandle } from '../../bench/harness/varnish.js';
import { startEdgeFixture, type EdgeFixture } from '../support/edgeFixture.js';

const DOMAIN = 'blogs.example.org';
let f: EdgeFixture;
let varnish: VarnishHandle;
let blogId: string;

beforeAll(async () => {
  f = await startEdgeFixture({}, DOMAIN);
  const closed = await freePort();
  varnish = await startVarnish({
    port: f.port,
    vcl: shippedVclFor({ ...f.backends, folio: { host: '127.0.0.1', port: closed } }),
    // What the compose file passes: the same value as Folio's, port included (ignored by the VCL).
    env: { FOLIO_SERVICE_DOMAIN: `${DOMAIN.toUpperCase()}:${f.port}` },
  });
  blogId = (await f.t.request('POST', '/v1/blogs', { body: { slug: 'edge', name: 'On a real domain' } })).body.id;
  await f.t.folio.idle();
  await f.t.request('POST', '/v1/posts', { blogId, body: { title: 'Far light', content: 'Words from afar.', status: 'published' } });
}, 60_000);

afterAll(async () => {
  await varnish?.stop();
  await f?.close();
});

describe('deploy/varnish/folio.vcl with FOLIO_SERVICE_DOMAIN=blogs.example.org', () => {
  it('serves <slug>.blogs.example.org from the bucket, with or without the port, and caches it', async () => {
    expect(f.host).toBe(`edge.${DOMAIN}:${f.port}`);
    const home = await f.edge('/');
    expect(home.status, home.text).toBe(200);
    expect(home.text).toContain('Far light');
    expect((await f.cached('/far-light')).text).toContain('Words from afar.');
    expect((await f.edge('/', { host: `EDGE.${DOMAIN}.` })).status).toBe(200);
    expect((await f.edge('/no-such-post')).status).toBe(404);
  });

  it('purges on that domain: an edit is visible through the cache as soon as the API answered', async () => {
    await f.cached('/far-light');
    expect((await f.t.request('PUT', '/v1/posts/far-light', { blogId, body: { content: 'Nearer words.' } })).status).toBe(200);
    expect((await f.edge('/far-light')).text).toContain('Nearer words.');
  });

  it('sends hosts that are not <slug>.<domain> to Folio (here: closed), never to the bucket', async () => {
    for (const host of [`edge.localhost:${f.port}`, `a.edge.${DOMAIN}`, DOMAIN, `edge.${DOMAIN}.evil.net`, `edge-${DOMAIN}`]) {
      const res = await f.edge('/', { host });
      expect(res.status, host).toBe(503);
    }
  });
});
