import { StorageError } from '../../src/domain/errors.js';
import type { PutOptions, SiteStore, StoredObject } from '../../src/storage/siteStore.js';

/**
 * A real store with a switch: while `down`, or once `failAfterPuts` writes have gone through,
 * every call fails the way an unreachable backend does. Simulates an outage or a process that
 * dies half way through a job.
 */
export class FaultyStore implements SiteStore {
  down = false;
  failAfterPuts: number | null = null;
  /** With failAfterPuts: only puts fail (a backend refusing writes), the rest keeps working. */
  putsOnly = false;
  puts = 0;
  /** Puts of the keys it accepts fail, the rest works (a backend refusing some objects). */
  failPut: ((key: string) => boolean) | null = null;
  /** Puts of the keys it answers with a promise wait for it (a backend slow on some objects). */
  holdPut: ((key: string) => Promise<void> | null) | null = null;

  constructor(private readonly inner: SiteStore) {}

  private check(put = false): void {
    if (this.down) throw new StorageError('store unavailable (simulated outage)');
    if (this.failAfterPuts !== null && this.puts >= this.failAfterPuts && (put || !this.putsOnly))
      throw new StorageError('store unavailable (simulated crash)');
  }

  async put(key: string, body: Buffer | string, options: PutOptions): Promise<void> {
    this.check(true);
    if (this.failPut?.(key)) throw new StorageError(`store refused ${key} (simulated)`);
    const held = this.holdPut?.(key);
    if (held) await held;
    this.puts += 1;
    return this.inner.put(key, body, options);
  }

  async get(key: string): Promise<StoredObject | null> {
    return this.inner.get(key);
  }

  async getBody(key: string): Promise<Buffer | null> {
    return this.inner.getBody(key);
  }

  async getRange(key: string, start: number, end: number): Promise<Buffer | null> {
    return this.inner.getRange(key, start, end);
  }

  async size(key: string): Promise<number | null> {
    return this.inner.size(key);
  }

  async delete(key: string): Promise<void> {
    this.check();
    return this.inner.delete(key);
  }

  async deleteMany(keys: string[]): Promise<void> {
    this.check();
    return this.inner.deleteMany(keys);
  }

  async list(prefix: string): Promise<string[]> {
    this.check();
    return this.inner.list(prefix);
  }

  async flush(): Promise<void> {
    this.check();
    return this.inner.flush();
  }
}
