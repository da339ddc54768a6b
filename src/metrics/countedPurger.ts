import type { CdnPurger } from '../cdn/cdnPurger.js';

/**
 * A CdnPurger that counts failed purge calls by provider (folio_cdn_purge_errors_total) and
 * rethrows them unchanged, so the job still fails and is retried.
 */
export class CountedPurger implements CdnPurger {
  readonly name: string;

  constructor(
    private readonly inner: CdnPurger,
    private readonly countError: (provider: string) => void,
  ) {
    this.name = inner.name;
  }

  purgePaths(origins: readonly string[], paths: readonly string[]): Promise<void> {
    return this.counted(() => this.inner.purgePaths(origins, paths));
  }

  purgeOrigins(origins: readonly string[], paths: readonly string[]): Promise<void> {
    return this.counted(() => this.inner.purgeOrigins(origins, paths));
  }

  private async counted(run: () => Promise<void>): Promise<void> {
    try {
      await run();
    } catch (err) {
      this.countError(this.name);
      throw err;
    }
  }
}
