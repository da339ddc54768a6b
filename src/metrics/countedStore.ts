import type { PutOptions, SiteStore, StoredObject } from '../storage/siteStore.js';

/**
 * A SiteStore that counts its failures by operation (folio_store_errors_total) and otherwise
 * passes everything through unchanged: errors are rethrown as they came.
 */
export class CountedSiteStore implements SiteStore {
  constructor(
    private readonly inner: SiteStore,
    private readonly countError: (operation: string) => void,
  ) {}

  put(key: string, body: Buffer | string, options: PutOptions): Promise<void> {
    return this.counted('put', () => this.inner.put(key, body, options));
  }

  get(key: string): Promise<StoredObject | null> {
    return this.counted('get', () => this.inner.get(key));
  }

  getBody(key: string): Promise<Buffer | null> {
    return this.counted('get', () => this.inner.getBody(key));
  }

  getRange(key: string, start: number, end: number): Promise<Buffer | null> {
    return this.counted('get', () => this.inner.getRange(key, start, end));
  }

  size(key: string): Promise<number | null> {
    return this.counted('size', () => this.inner.size(key));
  }

  delete(key: string): Promise<void> {
    return this.counted('delete', () => this.inner.delete(key));
  }

  deleteMany(keys: string[]): Promise<void> {
    return this.counted('delete_many', () => this.inner.deleteMany(keys));
  }

  list(prefix: string): Promise<string[]> {
    return this.counted('list', () => this.inner.list(prefix));
  }

  flush(): Promise<void> {
    return this.counted('flush', () => this.inner.flush());
  }

  private async counted<T>(operation: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      this.countError(operation);
      throw err;
    }
  }
}
