/** The purger FOLIO_CDN names (the composition root's choice; nothing else reads it). */
import type { CdnConfig } from '../config/config.js';
import { noCdn, type CdnPurger } from './cdnPurger.js';
import { CloudflarePurger } from './cloudflarePurger.js';
import { cloudFrontSdk, CloudFrontPurger } from './cloudFrontPurger.js';
import { HttpPurger } from './httpPurger.js';

export function createCdnPurger(cdn: CdnConfig): CdnPurger {
  switch (cdn.kind) {
    case 'none':
      return noCdn;
    case 'http-purge':
      return new HttpPurger(cdn.purgeUrl, cdn.wholeHost);
    case 'cloudfront':
      // CloudFront's API lives in us-east-1 whatever the bucket's region; credentials come from the SDK's chain.
      return new CloudFrontPurger(
        new (cloudFrontSdk().CloudFrontClient)({ region: 'us-east-1', ...(cdn.endpoint ? { endpoint: cdn.endpoint } : {}) }),
        cdn.distributionId,
      );
    case 'cloudflare':
      return new CloudflarePurger({ zoneId: cdn.zoneId, apiToken: cdn.apiToken, apiUrl: cdn.apiUrl });
  }
}
