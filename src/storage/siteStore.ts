/**
 * Where published sites live. Keys are relative POSIX paths such as `<blog>/<post>/index.html`
 * or `_domains/<host>`. No vendor or HTTP types cross this interface, so every
 * adapter passes the same contract suite.
 */

export interface PutOptions {
  contentType: string;
  cacheControl: string;
  /** When set, the object is a redirect to this site-relative path (e.g. `/new-slug`). */
  redirectTo?: string;
  /**
   * Part of a bulk write: the caller calls `flush()` before it relies on the object surviving
   * a power cut, so the backend may skip its per-object flush. Readers still never see part
   * of an object.
   */
  deferSync?: boolean;
}

export interface StoredObject {
  body: Buffer;
  contentType: string;
  cacheControl: string;
  /** Strong validator of the body, quoted as in an HTTP ETag header. */
  etag: string;
  redirectTo?: string;
}

export interface SiteStore {
  /** Writes the object atomically: a reader sees the old or the new body, never a part. */
  put(key: string, body: Buffer | string, options: PutOptions): Promise<void>;
  /** The object, or null when there is none. */
  get(key: string): Promise<StoredObject | null>;
  /**
   * Bytes [start, end) of the object's body (fewer when it is shorter), or null when there is no
   * such object. For objects that are never replaced (search segments): a reader of a part
   * needs no validator to know the parts it reads belong together.
   */
  getRange(key: string, start: number, end: number): Promise<Buffer | null>;
  /**
   * The object's body alone, or null when there is none: for a writer's own files (the static
   * search index's state and chunks), read whole and parsed at once. Like `get` it never returns
   * part of one version, but it skips what only an answer to a reader needs (the folder store
   * hashes the body to pair it with its metadata).
   */
  getBody(key: string): Promise<Buffer | null>;
  /** The body's size in bytes without reading it, or null when there is no such object. */
  size(key: string): Promise<number | null>;
  /** Removes the object; removing a missing key is not an error. */
  delete(key: string): Promise<void>;
  /** Removes many objects (batched where the backend allows it). */
  deleteMany(keys: string[]): Promise<void>;
  /** Every key under the prefix, in lexicographic order, following pagination to the end. */
  list(prefix: string): Promise<string[]>;
  /** Makes every `deferSync` write so far durable (a no-op where every put already is). */
  flush(): Promise<void>;
}

/** An object produced by the renderer, ready to be written through a SiteStore. */
export interface SiteObject {
  key: string;
  body: Buffer | string;
  contentType: string;
  cacheControl: string;
  redirectTo?: string;
}
