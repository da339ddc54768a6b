import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { visit } from '../../bench/harness/visit.js';
import { freePort } from '../../bench/harness/ports.js';
import { shippedVclFor, startVarnish, type EdgeBackends, type VarnishHandle } from '../../bench/harness/varnish.js';
import { startNginx, type NginxHandle } from '../support/nginx.js';
import { startRecordingServer, type RecordedRequest, type RecordingServer } from '../support/recordingServer.js';
import { CHROME_UA } from '../support/readerVisits.js';

/**
 * What the shipped edges send upstream, seen by a recording origin in place of both Folio and the
 * bucket: every view beacon (docs/analytics.md) passes through, even when the origin calls the
 * answer cacheable, with its query (the post) and the reader's address appended to
 * X-Forwarded-For; and a reader's cookies and credentials never leave the edge.
 */

let origin: RecordingServer;
let varnish: VarnishHandle;
let nginx: NginxHandle;

beforeAll(async () => {
  origin = await startRecordingServer();
  // An origin that wrongly allows caching: the edge must pass the beacon anyway.
  origin.respond = () => ({ status: 200, body: 'GIF89a', headers: { 'content-type': 'image/gif', 'cache-control': 'public, max-age=3600' } });
  const address = new URL(origin.url);
  const backends: EdgeBackends = {
    bucket: { host: address.hostname, port: Number(address.port) },
    folio: { host: address.hostname, port: Number(address.port) },
  };
  varnish = await startVarnish({ vcl: shippedVclFor(backends) });
  nginx = await startNginx({ backends, port: await freePort() });
}, 120_000);

afterAll(async () => {
  await varnish?.stop();
  await nginx?.stop();
  await origin?.close();
});

/** Two identical beacon loads by one reader at 127.0.0.2 through the edge on `port`; what the origin received. */
async function twoBeacons(port: number): Promise<RecordedRequest[]> {
  const host = `edge.localhost:${port}`;
  origin.requests.length = 0;
  for (let i = 0; i < 2; i++) {
    const answer = await visit(`http://127.0.0.1:${port}`, host, '/_folio/view.gif?p=first-light', {
      localAddress: '127.0.0.2',
      headers: {
        'user-agent': CHROME_UA,
        referer: `http://${host}/first-light`,
        cookie: 'session=reader-secret',
        authorization: 'Basic cmVhZGVyOnNlY3JldA==',
        'x-forwarded-for': '198.51.100.9',
      },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('image/gif');
  }
  return origin.requests.filter((r) => r.url.startsWith('/_folio/view.gif'));
}

/** A page of a custom domain (a host that is no `<slug>.localhost`), which both edges ask Folio for. */
async function customDomainPage(port: number): Promise<RecordedRequest> {
  origin.requests.length = 0;
  const answer = await visit(`http://127.0.0.1:${port}`, 'blog.example.com', '/first-light', {
    localAddress: '127.0.0.2',
    headers: { 'user-agent': CHROME_UA, cookie: 'session=reader-secret', authorization: 'Basic cmVhZGVyOnNlY3JldA==', 'x-forwarded-for': '198.51.100.9' },
  });
  expect(answer.status).toBe(200);
  expect(origin.requests).toHaveLength(1);
  return origin.requests[0]!;
}

describe('the view beacon as the shipped edges pass it to Folio', () => {
  it('Varnish: every load, its query, the reader’s address last in X-Forwarded-For, no cookie or credentials', async () => {
    const received = await twoBeacons(varnish.port);
    expect(received).toHaveLength(2);
    for (const request of received) {
      expect(request.method).toBe('GET');
      expect(request.url).toBe('/_folio/view.gif?p=first-light');
      expect(request.headers.host).toBe(`edge.localhost:${varnish.port}`);
      expect(request.headers['x-forwarded-for']).toBe('198.51.100.9, 127.0.0.2');
      expect(request.headers['user-agent']).toBe(CHROME_UA);
      expect(request.headers.referer).toBe(`http://edge.localhost:${varnish.port}/first-light`);
      expect(request.headers.cookie).toBeUndefined();
      expect(request.headers.authorization).toBeUndefined();
    }
  });

  it('nginx: every load, its query, the reader’s address last in X-Forwarded-For, no cookie or credentials, over a kept-alive connection', async () => {
    const received = await twoBeacons(nginx.port);
    expect(received, nginx.errors()).toHaveLength(2);
    for (const request of received) {
      expect(request.method).toBe('GET');
      expect(request.url).toBe('/_folio/view.gif?p=first-light');
      // $host: lower case, without the port; Folio's site server ignores the port too.
      expect(request.headers.host).toBe('edge.localhost');
      expect(request.headers['x-forwarded-for']).toBe('198.51.100.9, 127.0.0.2');
      expect(request.headers['user-agent']).toBe(CHROME_UA);
      expect(request.headers.referer).toBe(`http://edge.localhost:${nginx.port}/first-light`);
      expect(request.headers.cookie).toBeUndefined();
      expect(request.headers.authorization).toBeUndefined();
      // The upstream's keepalive pool is used: one connection per beacon would churn sockets under load.
      expect(request.headers.connection).not.toBe('close');
    }
  });

  it('both edges: a custom domain’s page reaches Folio with the address they saw last in X-Forwarded-For, no cookie or credentials', async () => {
    for (const port of [varnish.port, nginx.port]) {
      const request = await customDomainPage(port);
      expect(request.url, `port ${port}`).toBe('/first-light');
      expect(request.headers['x-forwarded-for'], `port ${port}`).toBe('198.51.100.9, 127.0.0.2');
      expect(request.headers.cookie, `port ${port}`).toBeUndefined();
      expect(request.headers.authorization, `port ${port}`).toBeUndefined();
    }
  });

  it('both edges: a blog’s page is read from the bucket without the reader’s cookie or credentials', async () => {
    for (const port of [varnish.port, nginx.port]) {
      origin.requests.length = 0;
      const answer = await visit(`http://127.0.0.1:${port}`, `edge.localhost:${port}`, '/second-light', {
        headers: { 'user-agent': CHROME_UA, cookie: 'session=reader-secret', authorization: 'Basic cmVhZGVyOnNlY3JldA==' },
      });
      expect(answer.status, `port ${port}`).toBe(200);
      expect(
        origin.requests.map((r) => r.url),
        `port ${port}`,
      ).toEqual(['/folio-sites/edge/second-light/index.html']);
      expect(origin.requests[0]!.headers.cookie, `port ${port}`).toBeUndefined();
      expect(origin.requests[0]!.headers.authorization, `port ${port}`).toBeUndefined();
    }
  });
});
