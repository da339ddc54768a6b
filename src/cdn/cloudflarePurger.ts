/**
 * FOLIO_CDN=cloudflare: `POST /zones/<zone>/purge_cache` of the Cloudflare API with an API token
 * (Bearer). Changed objects are purged by URL (`files`), at most 100 per request, the limit of
 * every plan; a whole-blog change is purged by hostname (`hosts`), available on every plan
 * since 2024. The free plan allows 5 purge requests a minute: past that Cloudflare answers 429
 * and the job is retried with backoff. Cloudflare's answer is checked (`success`).
 */
import { batches, CdnPurgeError, type CdnPurger } from './cdnPurger.js';

export const CLOUDFLARE_BATCH = 100;
const TIMEOUT_MS = 15_000;

export class CloudflarePurger implements CdnPurger {
  readonly name = 'cloudflare';

  constructor(private readonly options: { zoneId: string; apiToken: string; apiUrl: string }) {}

  async purgePaths(origins: readonly string[], paths: readonly string[]): Promise<void> {
    const urls = origins.flatMap((origin) => paths.map((path) => `${origin}${path}`));
    for (const batch of batches([...new Set(urls)], CLOUDFLARE_BATCH)) await this.purge({ files: batch });
  }

  async purgeOrigins(origins: readonly string[], _paths: readonly string[]): Promise<void> {
    const hosts = [...new Set(origins.map((origin) => new URL(origin).hostname))];
    for (const batch of batches(hosts, CLOUDFLARE_BATCH)) await this.purge({ hosts: batch });
  }

  private async purge(body: { files: string[] } | { hosts: string[] }): Promise<void> {
    const url = `${this.options.apiUrl}/zones/${encodeURIComponent(this.options.zoneId)}/purge_cache`;
    let res: Response;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.options.apiToken}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      throw new CdnPurgeError(`Cloudflare purge could not reach ${this.options.apiUrl}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    const text = await res.text();
    let success = false;
    let errors = '';
    try {
      const parsed = JSON.parse(text) as { success?: unknown; errors?: { code?: unknown; message?: unknown }[] };
      success = parsed.success === true;
      errors = (parsed.errors ?? []).map((e) => `${String(e.code)} ${String(e.message)}`).join('; ');
    } catch {
      errors = text.slice(0, 200);
    }
    if (!res.ok || !success) throw new CdnPurgeError(`Cloudflare purge answered ${res.status}${errors ? `: ${errors}` : ''}`);
  }
}
