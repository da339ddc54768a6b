/**
 * Runs work one at a time per key, in the order it was queued, and different keys side by side.
 * A failure reaches only the caller whose work failed; the next work of the key still runs.
 */
export class KeyedQueue<K = string> {
  private readonly tails = new Map<K, Promise<unknown>>();

  /** Runs `work` after every earlier work of `key` has settled. */
  run<T>(key: K, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const next = previous.then(work);
    const settled = next.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, settled);
    void settled.then(() => {
      if (this.tails.get(key) === settled) this.tails.delete(key);
    });
    return next;
  }

  /** The tail of `key`'s work: settles when everything queued for it so far has. */
  settled(key: K): Promise<void> {
    return (this.tails.get(key) ?? Promise.resolve()).then(() => undefined);
  }

  /** Whether any work of `key` is running or queued. */
  busy(key: K): boolean {
    return this.tails.has(key);
  }

  /** How many keys have work running or queued. */
  get size(): number {
    return this.tails.size;
  }

  /** Resolves once no work of any key is running or queued, including work queued while waiting. */
  async idle(): Promise<void> {
    while (this.tails.size > 0) await Promise.all([...this.tails.values()]);
  }
}
