/**
 * FOLIO_CDN=cloudfront: one CreateInvalidation per batch of paths (@aws-sdk/client-cloudfront,
 * the S3 client's family; credentials from the SDK's default chain). An invalidation names
 * paths, not hosts: it applies to every host the distribution serves, so purging `/about` of
 * one blog refetches `/about` of the others too, which costs an origin fetch but is never wrong.
 * A whole-blog change invalidates `/*` (one wildcard path). AWS allows 3,000 paths per
 * distribution in progress, and 15 wildcard paths; a refusal (TooManyInvalidationsInProgress)
 * fails the job, which is retried with backoff.
 */
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import type { CloudFrontClient } from '@aws-sdk/client-cloudfront';

/** Loaded on first use: only FOLIO_CDN=cloudfront needs the SDK (a fifth of a second to load). */
const requireModule = createRequire(import.meta.url);
export const cloudFrontSdk = (): typeof import('@aws-sdk/client-cloudfront') =>
  requireModule('@aws-sdk/client-cloudfront') as typeof import('@aws-sdk/client-cloudfront');
import { batches, CdnPurgeError, type CdnPurger } from './cdnPurger.js';

/** Paths per CreateInvalidation (AWS: up to 3,000 in progress per distribution). */
export const CLOUDFRONT_BATCH = 1000;

export class CloudFrontPurger implements CdnPurger {
  readonly name = 'cloudfront';

  constructor(
    private readonly client: CloudFrontClient,
    private readonly distributionId: string,
  ) {}

  async purgePaths(_origins: readonly string[], paths: readonly string[]): Promise<void> {
    for (const batch of batches([...new Set(paths)], CLOUDFRONT_BATCH)) await this.invalidate(batch);
  }

  async purgeOrigins(origins: readonly string[], _paths: readonly string[]): Promise<void> {
    if (origins.length > 0) await this.invalidate(['/*']);
  }

  private async invalidate(paths: string[]): Promise<void> {
    if (paths.length === 0) return;
    try {
      await this.client.send(
        new (cloudFrontSdk().CreateInvalidationCommand)({
          DistributionId: this.distributionId,
          // Unique per request: CloudFront treats a repeated reference as the same invalidation.
          InvalidationBatch: { CallerReference: `folio-${Date.now()}-${randomUUID()}`, Paths: { Quantity: paths.length, Items: paths } },
        }),
      );
    } catch (err) {
      throw new CdnPurgeError(
        `CloudFront invalidation of ${paths.length} paths in ${this.distributionId} failed: ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`,
        { cause: err },
      );
    }
  }
}
