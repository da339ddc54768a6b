/**
 * FOLIO_CDN=http-purge: Varnish, nginx with a purge module, or any cache that takes the PURGE
 * and BAN methods. For each origin, `PURGE <path>` with that origin's `Host` per path, and for a
 * whole-blog change `BAN /` with the `Host`, meaning every object of that host (the shipped
 * deploy/varnish/folio.vcl implements both). A cache without host-wide bans (nginx's
 * ngx_cache_purge) gets a PURGE of every path of the blog instead (`wholeHost: 'paths'`,
 * FOLIO_CDN_PURGE_WHOLE=paths). 2xx and 404 (nothing cached) are success.
 */
import { request } from 'node:http';
import { request as requestTls } from 'node:https';
import { CdnPurgeError, type CdnPurger } from './cdnPurger.js';

/** Purges in flight at once: a post change names 10-30 paths per host. */
const CONCURRENCY = 8;
const TIMEOUT_MS = 10_000;

export class HttpPurger implements CdnPurger {
  readonly name = 'http-purge';
  private readonly cache: URL;

  /** `cacheUrl`: where the cache listens for purges (FOLIO_CDN_PURGE_URL). */
  constructor(
    cacheUrl: string,
    private readonly wholeHost: 'ban' | 'paths' = 'ban',
  ) {
    this.cache = new URL(cacheUrl);
  }

  async purgePaths(origins: readonly string[], paths: readonly string[]): Promise<void> {
    const calls = origins.flatMap((origin) => paths.map((path) => ({ method: 'PURGE', host: new URL(origin).host, path })));
    await this.run(calls);
  }

  async purgeOrigins(origins: readonly string[], paths: readonly string[]): Promise<void> {
    if (this.wholeHost === 'paths') return this.purgePaths(origins, paths);
    await this.run(origins.map((origin) => ({ method: 'BAN', host: new URL(origin).host, path: '/' })));
  }

  private async run(calls: { method: string; host: string; path: string }[]): Promise<void> {
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < calls.length) {
        const call = calls[next++]!;
        await this.send(call.method, call.host, call.path);
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, calls.length) }, worker));
  }

  private send(method: string, host: string, path: string): Promise<void> {
    const base = this.cache.pathname.replace(/\/+$/, '');
    const send = this.cache.protocol === 'https:' ? requestTls : request;
    return new Promise((resolve, reject) => {
      const fail = (why: string, cause?: unknown): void =>
        reject(new CdnPurgeError(`${method} ${path} for ${host} at ${this.cache.origin}: ${why}`, cause === undefined ? undefined : { cause }));
      const req = send(
        {
          protocol: this.cache.protocol,
          hostname: this.cache.hostname,
          port: this.cache.port,
          method,
          path: `${base}${path}`,
          headers: { host },
          timeout: TIMEOUT_MS,
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            if ((status >= 200 && status < 300) || status === 404) resolve();
            else fail(`answered ${status}`);
          });
          res.on('error', (err) => fail('connection failed', err));
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`)));
      req.on('error', (err) => fail(err.message, err));
      req.end();
    });
  }
}
