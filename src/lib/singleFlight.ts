/**
 * Shares one running load per key: callers that ask while a load of the key is under way get
 * its promise instead of starting another. The key is forgotten once the load settles, so a
 * failed load is tried afresh by the next caller.
 */
export class SingleFlight<K, V> {
  private readonly running = new Map<K, Promise<V>>();

  load(key: K, loader: () => Promise<V>): Promise<V> {
    const current = this.running.get(key);
    if (current) return current;
    const started = loader();
    this.running.set(key, started);
    const forget = (): void => {
      if (this.running.get(key) === started) this.running.delete(key);
    };
    started.then(forget, forget);
    return started;
  }

  /** Whether a load of `key` is under way. */
  has(key: K): boolean {
    return this.running.has(key);
  }

  /** Forgets a running load, so the next caller starts another (after an invalidation). */
  forget(key: K): void {
    this.running.delete(key);
  }

  /** Resolves once no load is under way (failures included). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running.values()]);
  }
}
