/**
 * Which blog a beacon's host serves, remembered for a few seconds. Every page load sends a
 * beacon, and the site server's per-request lookup (one SQLite probe, so that a deleted blog's
 * pages go at its commit) was the largest share of a beacon's cost on the API's event loop. A
 * beacon needs no such promptness: a deleted blog's counts are dropped at the next flush
 * (analyticsRepo.add), so its beacons may answer an image for `ttlMs` more. Only blogs found
 * are kept, so a new blog counts from its first load and a hostile host costs no memory.
 */
import type { Clock } from '../lib/clock.js';
import type { HostBlog } from '../services/siteHosts.js';

const TTL_MS = 5_000;
/** Past it the map starts again (hostile hosts cannot grow memory). */
const MAX_HOSTS = 10_000;

export function rememberedHosts(blogForHost: (host: string) => Promise<HostBlog>, clock: Clock, ttlMs = TTL_MS): (host: string) => Promise<HostBlog> {
  let known = new Map<string, { blog: string; until: number }>();
  return async (host) => {
    const now = clock.now().getTime();
    const entry = known.get(host);
    if (entry && entry.until > now) return entry.blog;
    const blog = await blogForHost(host);
    if (typeof blog !== 'string') {
      known.delete(host);
      return blog;
    }
    if (known.size >= MAX_HOSTS) known = new Map();
    known.set(host, { blog, until: now + ttlMs });
    return blog;
  };
}
