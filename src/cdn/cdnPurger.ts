/**
 * Telling a CDN that published objects changed. Publish jobs call it after the store accepted
 * their writes (publish/stages/cdnSync.ts); a purge that fails throws, and the job stays pending and
 * is retried like a store failure, so a job is done only when the store and the edge both match
 * the database. No vendor types cross this interface, so a
 * provider can be swapped without touching publishing.
 *
 * An origin is a blog's public scheme and host as readers use it (`https://blog.example.com`,
 * `http://hello.localhost:3000`); a path is a public URL path, percent-encoded as browsers send
 * it (`/`, `/hello-world`, `/hello-world/`, `/rss.xml`).
 */
export interface CdnPurger {
  /** For logs and metrics. */
  readonly name: string;
  /** Invalidates these paths on every origin. */
  purgePaths(origins: readonly string[], paths: readonly string[]): Promise<void>;
  /**
   * Invalidates everything cached for the origins (a whole-blog change). `paths` are every
   * public path the blog has or had, for caches that cannot drop a whole host at once.
   */
  purgeOrigins(origins: readonly string[], paths: readonly string[]): Promise<void>;
}

/** The CDN refused or could not be reached; the job is retried. */
export class CdnPurgeError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CdnPurgeError';
  }
}

/** FOLIO_CDN=none: nothing to tell. */
export const noCdn: CdnPurger = {
  name: 'none',
  purgePaths: async () => undefined,
  purgeOrigins: async () => undefined,
};

/** Splits `items` into batches of at most `size`. */
export function batches<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += size) out.push(items.slice(start, start + size));
  return out;
}
