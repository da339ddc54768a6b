import { expect } from 'vitest';
import { S3SiteStore } from '../../src/storage/s3SiteStore.js';
import { edgeRequest, type EdgeResponse } from '../../bench/harness/edgeRequest.js';
import { createTestS3Client, startS3rver, type S3rverHandle } from '../../bench/harness/s3rver.js';
import { startTestApp, type TestApp } from './testApp.js';
import { freePort } from '../../bench/harness/ports.js';
import type { EdgeBackends } from '../../bench/harness/varnish.js';

/**
 * What both edge suites need before their cache starts: an s3rver holding the shipped bucket
 * name, the real app writing into it and purging the cache's port (chosen first, since the
 * public Host carries it), and the backends the shipped configuration must be pointed at.
 */
export interface EdgeFixture {
  s3: S3rverHandle;
  t: TestApp;
  /** Where the cache must listen: Folio purges it there and readers use it as their port. */
  port: number;
  /** `edge.<domain>:<port>` (`edge.localhost:<port>` by default), the Host of the blog the suites publish. */
  host: string;
  backends: EdgeBackends;
  /** A request through the cache (Host defaults to the blog's). */
  edge(path: string, options?: { host?: string; method?: string; from?: string }): Promise<EdgeResponse>;
  /** Reads a path twice; the second read must be served from the cache. */
  cached(path: string, host?: string): Promise<EdgeResponse>;
  close(): Promise<void>;
}

/** `domain`: the service domain without its port (FOLIO_SERVICE_DOMAIN is `<domain>:<port>`). */
export async function startEdgeFixture(env: Record<string, string> = {}, domain = 'localhost'): Promise<EdgeFixture> {
  const s3 = await startS3rver({ buckets: ['folio-sites'] });
  const port = await freePort();
  const host = `edge.${domain}:${port}`;
  const store = new S3SiteStore({ client: await createTestS3Client(s3.endpoint), bucket: 'folio-sites' });
  const t = await startTestApp({
    store,
    env: { FOLIO_SERVICE_DOMAIN: `${domain}:${port}`, FOLIO_CDN: 'http-purge', FOLIO_CDN_PURGE_URL: `http://127.0.0.1:${port}`, ...env },
  });
  const bucket = new URL(s3.endpoint);
  const app = new URL(t.baseUrl);
  const edge: EdgeFixture['edge'] = (path, options = {}) => edgeRequest(port, options.host ?? host, path, options);
  return {
    s3,
    t,
    port,
    host,
    backends: { bucket: { host: bucket.hostname, port: Number(bucket.port) }, folio: { host: app.hostname, port: Number(app.port) } },
    edge,
    cached: async (path, hostHeader = host) => {
      await edge(path, { host: hostHeader });
      const second = await edge(path, { host: hostHeader });
      expect(second.headers['x-cache'], `${hostHeader}${path} should be cached`).toBe('HIT');
      return second;
    },
    close: async () => {
      await t.close();
      await s3.stop();
    },
  };
}
