/**
 * Blog leases in PostgreSQL's `blog_leases` (migration 025): a row names the node holding the blog
 * until `expires_at`, in the database's time, so the nodes' clocks need not agree. A holding node
 * renews its leases every third of their length; a node that stops (SIGKILL, a lost machine)
 * stops renewing, and another node may take the blog once the lease has expired. A node drained
 * on SIGTERM hands its leases back at once.
 *
 * A node stalled for longer than the lease (a pause of the whole process) may find, when it
 * resumes, that another node took the blog: the renewal reports it. Object writes are not fenced,
 * so the lease is set well above any pause a healthy node has (docs/operations.md).
 */
import { KeyedQueue } from '../../lib/keyedQueue.js';
import type { SqlClient } from '../../db/sql/sqlClient.js';
import type { BlogLeases } from './blogLeases.js';

export const LEASE_MS = 15_000;

export interface DatabaseLeasesDeps {
  sql: SqlClient;
  /** This node's name in the table: unique per process. */
  holder: string;
  logger: { error(fields: object, message: string): void };
  /** How long a lease lasts without renewal (default 15 s: a dead node's blogs are taken over within it). */
  leaseMs?: number;
}

const ACQUIRE = `INSERT INTO blog_leases (blog, holder, expires_at) VALUES (?, ?, clock_timestamp() + make_interval(secs => ?))
  ON CONFLICT (blog) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
  WHERE blog_leases.holder = excluded.holder OR blog_leases.expires_at < clock_timestamp()`;
const RENEW = `UPDATE blog_leases SET expires_at = clock_timestamp() + make_interval(secs => ?)
  WHERE holder = ? AND blog IN (SELECT jsonb_array_elements_text(?::jsonb)) RETURNING blog`;
const RELEASE = 'DELETE FROM blog_leases WHERE blog = ? AND holder = ?';

export class DatabaseLeases implements BlogLeases {
  /** This node's holds per blog. */
  private readonly holds = new Map<string, number>();
  /** One blog's acquisitions and releases in order, so a release never overtakes a later acquisition. */
  private readonly turns = new KeyedQueue<string>();
  private readonly leaseMs: number;
  private renewal: NodeJS.Timeout | undefined;

  constructor(private readonly deps: DatabaseLeasesDeps) {
    this.leaseMs = deps.leaseMs ?? LEASE_MS;
  }

  tryAcquire(blog: string): Promise<boolean> {
    return this.turns.run(blog, async () => {
      const held = this.holds.get(blog) ?? 0;
      if (held === 0) {
        const { changes } = await this.deps.sql.run(ACQUIRE, [blog, this.deps.holder, this.leaseMs / 1000]);
        if (changes === 0) return false;
      }
      this.holds.set(blog, held + 1);
      this.scheduleRenewal();
      return true;
    });
  }

  release(blog: string): Promise<void> {
    return this.turns.run(blog, async () => {
      const held = this.holds.get(blog) ?? 0;
      if (held > 1) {
        this.holds.set(blog, held - 1);
        return;
      }
      this.holds.delete(blog);
      // A release that fails leaves the lease to expire: the blog waits at most its length.
      await this.deps.sql.run(RELEASE, [blog, this.deps.holder]).catch(() => undefined);
    });
  }

  async close(): Promise<void> {
    clearInterval(this.renewal);
    this.renewal = undefined;
    await Promise.all([...this.holds.keys()].map((blog) => this.turns.run(blog, () => this.handBack(blog))));
  }

  /** Renews every lease this node holds, together; reports the ones another node took meanwhile. */
  async renew(): Promise<void> {
    const blogs = [...this.holds.keys()];
    if (blogs.length === 0) return;
    const renewed = await this.deps.sql.all<{ blog: string }>(RENEW, [this.leaseMs / 1000, this.deps.holder, JSON.stringify(blogs)]);
    const kept = new Set(renewed.map((row) => row.blog));
    for (const blog of blogs) {
      if (kept.has(blog) || !this.holds.has(blog)) continue;
      this.deps.logger.error(
        { blog: blog },
        'this node lost its lease on a blog it is writing (it stalled for longer than the lease): another node may be writing it too',
      );
    }
  }

  private scheduleRenewal(): void {
    if (this.renewal) return;
    this.renewal = setInterval(() => {
      if (this.holds.size === 0) {
        clearInterval(this.renewal);
        this.renewal = undefined;
        return;
      }
      // A renewal that fails is tried again at the next interval, well inside the lease.
      this.renew().catch(() => undefined);
    }, this.leaseMs / 3);
    this.renewal.unref();
  }

  private async handBack(blog: string): Promise<void> {
    this.holds.delete(blog);
    await this.deps.sql.run(RELEASE, [blog, this.deps.holder]).catch(() => undefined);
  }
}
