import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CloudFrontClient } from '@aws-sdk/client-cloudfront';
import { CdnPurgeError } from '../../src/cdn/cdnPurger.js';
import { CloudflarePurger } from '../../src/cdn/cloudflarePurger.js';
import { CloudFrontPurger } from '../../src/cdn/cloudFrontPurger.js';
import { HttpPurger } from '../../src/cdn/httpPurger.js';
import { startRecordingServer, type RecordingServer } from '../support/recordingServer.js';

/**
 * Each purger against a real HTTP server on loopback. CloudFront and Cloudflare cannot run
 * here, so the server checks the requests as their APIs document them: CloudFront's
 * CreateInvalidation (POST /2020-05-31/distribution/{Id}/invalidation, an InvalidationBatch XML
 * body, SigV4 for service `cloudfront` in us-east-1, answered 201 with an Invalidation) and
 * Cloudflare's purge_cache (POST /zones/{zone}/purge_cache with a Bearer token and a JSON body
 * of `files` (at most 100) or `hosts`, answered with `{success, errors, messages, result}`).
 */
describe('CDN purgers', () => {
  let server: RecordingServer;
  beforeAll(async () => {
    server = await startRecordingServer();
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    server.requests.length = 0;
    server.respond = () => ({ status: 200 });
  });

  describe('http-purge (Varnish and other caches that take PURGE and BAN)', () => {
    let cache: RecordingServer;
    beforeAll(async () => {
      cache = await startRecordingServer({ anyMethod: true });
    });
    afterAll(async () => {
      await cache.close();
    });
    beforeEach(() => {
      cache.requests.length = 0;
      cache.respond = () => ({ status: 200 });
    });
    it('sends PURGE <path> with each public Host, and BAN / per host for a whole-blog change', async () => {
      const purger = new HttpPurger(cache.url);
      await purger.purgePaths(['http://a.example.test:8080', 'https://blog.a.test'], ['/', '/hello', '/hello/']);
      const purges = cache.requests.map((r) => `${r.method} ${r.headers.host} ${r.url}`).sort();
      expect(purges).toEqual([
        'PURGE a.example.test:8080 /',
        'PURGE a.example.test:8080 /hello',
        'PURGE a.example.test:8080 /hello/',
        'PURGE blog.a.test /',
        'PURGE blog.a.test /hello',
        'PURGE blog.a.test /hello/',
      ]);

      cache.requests.length = 0;
      await purger.purgeOrigins(['http://a.example.test:8080', 'https://blog.a.test'], ['/']);
      expect(cache.requests.map((r) => `${r.method} ${r.headers.host} ${r.url}`).sort()).toEqual(['BAN a.example.test:8080 /', 'BAN blog.a.test /']);
    });

    it('with wholeHost "paths" (nginx), purges every path of the blog instead of BAN', async () => {
      await new HttpPurger(cache.url, 'paths').purgeOrigins(['http://a.example.test'], ['/', '/x', '/x/']);
      expect(cache.requests.map((r) => `${r.method} ${r.headers.host} ${r.url}`).sort()).toEqual([
        'PURGE a.example.test /',
        'PURGE a.example.test /x',
        'PURGE a.example.test /x/',
      ]);
    });

    it('keeps a path prefix of the purge URL and treats 404 (nothing cached) as done', async () => {
      cache.respond = () => ({ status: 404 });
      await new HttpPurger(`${cache.url}/cache/`).purgePaths(['http://a.example.test'], ['/x']);
      expect(cache.requests.map((r) => r.url)).toEqual(['/cache/x']);
    });

    it('fails with CdnPurgeError when the cache refuses or cannot be reached', async () => {
      cache.respond = () => ({ status: 405 });
      await expect(new HttpPurger(cache.url).purgePaths(['http://a.example.test'], ['/x'])).rejects.toThrow(CdnPurgeError);
      await expect(new HttpPurger(cache.url).purgeOrigins(['http://a.example.test'], ['/'])).rejects.toThrow(/answered 405/);
      // A port nobody listens on: the connection is refused.
      await expect(new HttpPurger('http://127.0.0.1:9').purgePaths(['http://a.example.test'], ['/x'])).rejects.toThrow(CdnPurgeError);
    });
  });

  describe('cloudfront', () => {
    const client = (): CloudFrontClient =>
      new CloudFrontClient({
        region: 'us-east-1',
        endpoint: server.url,
        maxAttempts: 1,
        credentials: { accessKeyId: 'AKIDFOLIOTEST', secretAccessKey: 'secret' },
      });
    const created = (body: string): { status: number; body: string; headers: Record<string, string> } => {
      const ref = /<CallerReference>([^<]*)<\/CallerReference>/.exec(body)?.[1] ?? '';
      return {
        status: 201,
        headers: { 'content-type': 'text/xml', location: `${server.url}/2020-05-31/distribution/E2FOLIO/invalidation/I1` },
        body: `<?xml version="1.0" encoding="UTF-8"?><Invalidation xmlns="http://cloudfront.amazonaws.com/doc/2020-05-31/"><Id>I1</Id><Status>InProgress</Status><CreateTime>2026-11-24T00:00:00Z</CreateTime><InvalidationBatch><Paths><Quantity>1</Quantity><Items><Path>/x</Path></Items></Paths><CallerReference>${ref}</CallerReference></InvalidationBatch></Invalidation>`,
      };
    };
    const pathsOf = (body: string): string[] => [...body.matchAll(/<Path>([^<]*)<\/Path>/g)].map((m) => m[1]!);

    it('creates signed invalidations of the paths, batched by 1,000, each with its own caller reference', async () => {
      server.respond = (req) => created(req.body);
      const paths = Array.from({ length: 2300 }, (_, i) => `/post-${i}`);
      await new CloudFrontPurger(client(), 'E2FOLIO').purgePaths(['https://a.example.test', 'https://b.example.test'], [...paths, '/post-1']);

      expect(server.requests).toHaveLength(3);
      for (const req of server.requests) {
        expect(req.method).toBe('POST');
        expect(req.url).toBe('/2020-05-31/distribution/E2FOLIO/invalidation');
        expect(String(req.headers.authorization)).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDFOLIOTEST\/\d{8}\/us-east-1\/cloudfront\/aws4_request/);
        const quantity = Number(/<Quantity>(\d+)<\/Quantity>/.exec(req.body)?.[1]);
        expect(quantity).toBe(pathsOf(req.body).length);
      }
      const sent = server.requests.flatMap((r) => pathsOf(r.body));
      expect(server.requests.map((r) => pathsOf(r.body).length)).toEqual([1000, 1000, 300]);
      expect(sent.sort()).toEqual([...paths].sort());
      const refs = server.requests.map((r) => /<CallerReference>([^<]*)</.exec(r.body)?.[1]);
      expect(new Set(refs).size).toBe(3);
    });

    it('invalidates /* for a whole-blog change', async () => {
      server.respond = (req) => created(req.body);
      await new CloudFrontPurger(client(), 'E2FOLIO').purgeOrigins(['https://a.example.test'], ['/']);
      expect(server.requests.map((r) => pathsOf(r.body))).toEqual([['/*']]);
    });

    it('fails with CdnPurgeError naming CloudFront’s refusal', async () => {
      server.respond = () => ({
        status: 400,
        headers: { 'content-type': 'text/xml' },
        body: '<?xml version="1.0"?><ErrorResponse xmlns="http://cloudfront.amazonaws.com/doc/2020-05-31/"><Error><Type>Sender</Type><Code>TooManyInvalidationsInProgress</Code><Message>Processing your request will cause you to exceed the maximum number of in-progress wildcard invalidations.</Message></Error><RequestId>r1</RequestId></ErrorResponse>',
      });
      const failure = new CloudFrontPurger(client(), 'E2FOLIO').purgePaths(['https://a.example.test'], ['/x']);
      await expect(failure).rejects.toThrow(CdnPurgeError);
      await expect(failure).rejects.toThrow(/TooManyInvalidationsInProgress/);
    });
  });

  describe('cloudflare', () => {
    const zone = '0123456789abcdef0123456789abcdef';
    const purger = (): CloudflarePurger => new CloudflarePurger({ zoneId: zone, apiToken: 'cf-token', apiUrl: `${server.url}/client/v4` });
    const ok = (): { status: number; body: string } => ({
      status: 200,
      body: JSON.stringify({ success: true, errors: [], messages: [], result: { id: zone } }),
    });

    it('purges full URLs of every origin, at most 100 files a request, with the Bearer token', async () => {
      server.respond = ok;
      const paths = Array.from({ length: 120 }, (_, i) => `/p-${i}`);
      await purger().purgePaths(['https://a.example.test', 'https://blog.a.test'], paths);
      expect(server.requests).toHaveLength(3);
      for (const req of server.requests) {
        expect(req.method).toBe('POST');
        expect(req.url).toBe(`/client/v4/zones/${zone}/purge_cache`);
        expect(req.headers.authorization).toBe('Bearer cf-token');
        expect(req.headers['content-type']).toBe('application/json');
      }
      const files = server.requests.map((r) => (JSON.parse(r.body) as { files: string[] }).files);
      expect(files.map((f) => f.length)).toEqual([100, 100, 40]);
      expect(files.flat()).toContain('https://blog.a.test/p-119');
      expect(files.flat()).toContain('https://a.example.test/p-0');
      expect(new Set(files.flat()).size).toBe(240);
    });

    it('purges by hostname for a whole-blog change', async () => {
      server.respond = ok;
      await purger().purgeOrigins(['https://a.example.test:8443', 'https://blog.a.test'], ['/']);
      expect(server.requests.map((r) => JSON.parse(r.body))).toEqual([{ hosts: ['a.example.test', 'blog.a.test'] }]);
    });

    it('fails when Cloudflare answers an error status or success: false', async () => {
      server.respond = () => ({
        status: 429,
        body: JSON.stringify({
          success: false,
          errors: [{ code: 971, message: 'Please wait and consider throttling your request speed' }],
          messages: [],
          result: null,
        }),
      });
      await expect(purger().purgePaths(['https://a.example.test'], ['/x'])).rejects.toThrow(/429: 971 Please wait/);
      server.respond = () => ({
        status: 200,
        body: JSON.stringify({
          success: false,
          errors: [{ code: 1012, message: 'Request must contain one of "purge_everything", "files", "tags", "hosts" or "prefixes"' }],
          messages: [],
          result: null,
        }),
      });
      await expect(purger().purgeOrigins(['https://a.example.test'], ['/'])).rejects.toThrow(CdnPurgeError);
      await expect(
        new CloudflarePurger({ zoneId: zone, apiToken: 't', apiUrl: 'http://127.0.0.1:9' }).purgeOrigins(['https://a.example.test'], ['/']),
      ).rejects.toThrow(/could not reach/);
    });
  });
});
