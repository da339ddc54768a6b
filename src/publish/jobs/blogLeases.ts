/**
 * Which node may write a blog's pages and search indexes now (issue #32). One process (SQLite)
 * always may; several nodes on PostgreSQL take a lease on the blog first (databaseLeases.ts), so
 * no two nodes ever write one blog's objects together: its jobs, and the background work they
 * leave (search index merges, the static search queue). Holds of one node nest: the lease goes
 * back when this node's last hold of the blog ends. A blog is named by its slug, the prefix of its
 * objects, which never changes.
 */
import type { HoldBlog } from '../../lib/holdBlog.js';
import { setTimeout as sleep } from 'node:timers/promises';

export interface BlogLeases {
  /** Takes the blog for this node (or joins this node's hold of it); false while another node holds it. */
  tryAcquire(blog: string): Promise<boolean>;
  /** Ends one hold taken by tryAcquire; this node's last one hands the blog back. */
  release(blog: string): Promise<void>;
  /** Hands back every blog this node holds (a drained node, at shutdown). */
  close(): Promise<void>;
}

/** One process: every blog is always this process's to write. */
export const soleNode: BlogLeases = {
  tryAcquire: async () => true,
  release: async () => undefined,
  close: async () => undefined,
};

export interface WaitForBlog {
  /** Asked while another node holds the blog: true ends the wait without holding it (say, the job got done there). */
  settled?: () => Promise<boolean>;
  /** Longest wait (ms) before giving up; the work is then left for later. */
  maxWaitMs: number;
}

/** The wait while another node holds a blog is short (its job, or a search index write): ask often at first. */
const FIRST_POLL_MS = 5;
const MAX_POLL_MS = 100;

/**
 * Runs `work` holding the blog, waiting while another node holds it. Resolves `{ held: false }`
 * without running it when `settled` says it is no longer needed, or after `maxWaitMs`.
 */
export async function whileHolding<T>(
  leases: BlogLeases,
  blog: string,
  work: () => Promise<T>,
  wait: WaitForBlog,
): Promise<{ held: true; value: T } | { held: false }> {
  const deadline = Date.now() + wait.maxWaitMs;
  for (let pollMs = FIRST_POLL_MS; !(await leases.tryAcquire(blog)); pollMs = Math.min(MAX_POLL_MS, pollMs * 1.5)) {
    if (Date.now() >= deadline || (await wait.settled?.())) return { held: false };
    await sleep(pollMs);
  }
  try {
    return { held: true, value: await work() };
  } finally {
    await leases.release(blog);
  }
}

/** Runs a blog's background work holding the blog, or fails with this when another node kept it. */
export class BlogHeldElsewhereError extends Error {}

/** Background work waits this long for a blog another node holds, then fails (and is tried again later). */
const MAX_BACKGROUND_WAIT_MS = 60_000;

export function holdingBlogs(leases: BlogLeases): HoldBlog {
  return async (blog, work) => {
    const outcome = await whileHolding(leases, blog, work, { maxWaitMs: MAX_BACKGROUND_WAIT_MS });
    if (!outcome.held) throw new BlogHeldElsewhereError(`another node kept the blog ${blog} for ${MAX_BACKGROUND_WAIT_MS / 1000} s`);
    return outcome.value;
  };
}
