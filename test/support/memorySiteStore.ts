import { createHash } from 'node:crypto';
import type { PutOptions, SiteStore, StoredObject } from '../../src/storage/siteStore.js';

/**
 * SiteStore in a Map, for unit tests. Bodies are copied in and out so a caller can never
 * change a stored object by mutating its buffer, as with a real backend. Counts calls so tests
 * can assert what a write touched.
 */
export class MemorySiteStore implements SiteStore {
  private readonly objects = new Map<string, StoredObject>();
  readonly calls = { put: [] as string[], get: [] as string[], delete: [] as string[] };

  async flush(): Promise<void> {}

  async put(key: string, body: Buffer | string, options: PutOptions): Promise<void> {
    this.calls.put.push(key);
    const bytes = Buffer.from(body);
    const object: StoredObject = {
      body: bytes,
      contentType: options.contentType,
      cacheControl: options.cacheControl,
      etag: `"${createHash('sha256').update(bytes).digest('hex')}"`,
    };
    if (options.redirectTo !== undefined) object.redirectTo = options.redirectTo;
    this.objects.set(key, object);
  }

  async get(key: string): Promise<StoredObject | null> {
    this.calls.get.push(key);
    const object = this.objects.get(key);
    return object ? { ...object, body: Buffer.from(object.body) } : null;
  }

  async size(key: string): Promise<number | null> {
    return this.objects.get(key)?.body.length ?? null;
  }

  async getBody(key: string): Promise<Buffer | null> {
    this.calls.get.push(key);
    const object = this.objects.get(key);
    return object ? Buffer.from(object.body) : null;
  }

  async getRange(key: string, start: number, end: number): Promise<Buffer | null> {
    this.calls.get.push(key);
    const object = this.objects.get(key);
    return object ? Buffer.from(object.body).subarray(start, Math.max(start, end)) : null;
  }

  async delete(key: string): Promise<void> {
    this.calls.delete.push(key);
    this.objects.delete(key);
  }

  async deleteMany(keys: string[]): Promise<void> {
    for (const key of keys) await this.delete(key);
  }

  async list(prefix: string): Promise<string[]> {
    return [...this.objects.keys()].filter((k) => k.startsWith(prefix)).sort();
  }

  /** Test helper: forget the call log. */
  resetCalls(): void {
    this.calls.put.length = 0;
    this.calls.get.length = 0;
    this.calls.delete.length = 0;
  }
}
