/**
 * What a beacon counts toward, remembered for a few seconds: at a busy blog every page load asks
 * for the same few posts, and the lookup was a SQLite read per hit. A post unpublished or
 * deleted meanwhile is counted for at most `ttlMs` more (its page was still being served), and a
 * deleted post's or blog's counts are dropped at the flush anyway (analyticsRepo.add). Only
 * found targets are kept: a post published a moment after a miss counts from its first load.
 */
import type { Clock } from '../lib/clock.js';
import type { Targets } from './pageViews.js';
import type { ViewTarget } from './viewCounter.js';

const TTL_MS = 5_000;
/** Entries kept; past it the map starts again (hostile slugs cannot grow memory). */
const MAX_ENTRIES = 10_000;

export class RecentTargets implements Targets {
  private entries = new Map<string, { target: ViewTarget; until: number }>();

  constructor(
    private readonly source: Targets,
    private readonly clock: Clock,
    private readonly limits = { ttlMs: TTL_MS, entries: MAX_ENTRIES },
  ) {}

  async target(blogSlug: string, postSlug: string | null): Promise<ViewTarget | null> {
    const key = `${blogSlug}\0${postSlug ?? ''}`;
    const now = this.clock.now().getTime();
    const known = this.entries.get(key);
    if (known && known.until > now) return known.target;
    const target = await this.source.target(blogSlug, postSlug);
    if (target === null) {
      this.entries.delete(key);
      return null;
    }
    if (this.entries.size >= this.limits.entries) this.entries = new Map();
    this.entries.set(key, { target, until: now + this.limits.ttlMs });
    return target;
  }
}
