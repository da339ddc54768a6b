/**
 * A circuit breaker in front of the site store. A store that hangs (a paused or overloaded
 * server, packets dropped on the way) makes every call wait for its deadline; once one call has
 * timed out, the next ones fail at once for a short while instead of each waiting again, so that
 * site reads, searches and uploads answer 503 within a few seconds and publish jobs fail fast
 * and retry later. After the pause a single call is let through: its success closes the circuit
 * (the store is back), its timeout opens it again.
 *
 * Only timeouts open it: a store that refuses connections or answers errors already fails fast.
 */
import { StoreTimeoutError } from '../domain/errors.js';
import type { PutOptions, SiteStore, StoredObject } from './siteStore.js';

/** How long calls fail at once after a timeout, before one is let through to try again. */
export const OPEN_FOR_MS = 5_000;

type State = { kind: 'closed' } | { kind: 'open'; until: number } | { kind: 'probing' };

export class StoreCircuit implements SiteStore {
  private state: State = { kind: 'closed' };

  constructor(
    private readonly inner: SiteStore,
    private readonly options: { openForMs?: number; now?: () => number; onChange?: (open: boolean, cause?: unknown) => void } = {},
  ) {}

  /** Whether calls are being refused without reaching the store. */
  get open(): boolean {
    return this.state.kind !== 'closed';
  }

  put(key: string, body: Buffer | string, options: PutOptions): Promise<void> {
    return this.call(() => this.inner.put(key, body, options));
  }

  get(key: string): Promise<StoredObject | null> {
    return this.call(() => this.inner.get(key));
  }

  getRange(key: string, start: number, end: number): Promise<Buffer | null> {
    return this.call(() => this.inner.getRange(key, start, end));
  }

  getBody(key: string): Promise<Buffer | null> {
    return this.call(() => this.inner.getBody(key));
  }

  size(key: string): Promise<number | null> {
    return this.call(() => this.inner.size(key));
  }

  delete(key: string): Promise<void> {
    return this.call(() => this.inner.delete(key));
  }

  deleteMany(keys: string[]): Promise<void> {
    return this.call(() => this.inner.deleteMany(keys));
  }

  list(prefix: string): Promise<string[]> {
    return this.call(() => this.inner.list(prefix));
  }

  flush(): Promise<void> {
    return this.call(() => this.inner.flush());
  }

  private now(): number {
    return this.options.now?.() ?? performance.now();
  }

  private async call<T>(work: () => Promise<T>): Promise<T> {
    const state = this.state;
    let probe = false;
    if (state.kind === 'probing' || (state.kind === 'open' && this.now() < state.until)) {
      const waitMs = state.kind === 'open' ? state.until - this.now() : 1_000;
      throw new StoreTimeoutError('the site store did not answer a moment ago; not asking it again yet', { retryAfter: Math.max(1, Math.ceil(waitMs / 1000)) });
    }
    if (state.kind === 'open') {
      this.state = { kind: 'probing' };
      probe = true;
    }
    try {
      const result = await work();
      // Any answer shows the store is not hanging (also one to a call made before the circuit opened).
      if (this.state.kind !== 'closed') {
        this.state = { kind: 'closed' };
        this.options.onChange?.(false);
      }
      return result;
    } catch (err) {
      if (err instanceof StoreTimeoutError) {
        const wasClosed = this.state.kind === 'closed';
        this.state = { kind: 'open', until: this.now() + (this.options.openForMs ?? OPEN_FOR_MS) };
        if (wasClosed) this.options.onChange?.(true, err);
      } else if (probe) {
        // The store answered, with an error of its own: it is not hanging.
        this.state = { kind: 'closed' };
        this.options.onChange?.(false);
      }
      throw err;
    }
  }
}
