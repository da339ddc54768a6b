/**
 * How much whole-blog work runs at once in this process: full renders, which render their post
 * pages on a pool of worker threads that uses every core, and reindexes, which hold every post's
 * text while they index it. After an upgrade the job runner starts every blog's whole-site job
 * together, and each full render would start its own worker threads. Beyond the bound work waits
 * for a slot (in arrival order); publishes of single posts never take one.
 */
export class RenderSlots {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly size: number) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running += 1;
    try {
      return await work();
    } finally {
      // The slot passes straight to the next waiter, so `running` counts it throughout.
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }

  /** Renders running and waiting (tests). */
  stats(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }
}
