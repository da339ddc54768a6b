/**
 * Blog leases on PostgreSQL (publish/jobs/databaseLeases.ts) and the job runners of two nodes that
 * take them: a blog is written by one node at a time, a dead node's lease is taken over once it
 * has expired, and a request's jobs on one node wait while the other node holds their blog.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, onTestFinished } from 'vitest';
import { JobsRepo, type PublishJob } from '../../src/db/jobsRepo.js';
import { PostgresClient } from '../../src/db/sql/postgresClient.js';
import { DatabaseLeases } from '../../src/publish/jobs/databaseLeases.js';
import { JobRunner } from '../../src/publish/jobs/jobRunner.js';
import { systemClock } from '../../src/lib/clock.js';
import { createLogger } from '../../src/lib/logger.js';
import { T0, usePostgres } from '../support/postgresRepos.js';

const { seededDatabase } = usePostgres();
const logger = createLogger('silent');

function nodeOn(url: string, holder: string, leaseMs?: number) {
  const sql = new PostgresClient(url);
  const errors: string[] = [];
  const leases = new DatabaseLeases({
    sql,
    holder,
    logger: { error: (_obj: object, message: string) => errors.push(message) },
    ...(leaseMs ? { leaseMs } : {}),
  });
  onTestFinished(async () => {
    await leases.close();
    await sql.close();
  });
  return { sql, leases, errors };
}

describe('blog leases on PostgreSQL', () => {
  it('let one node hold a blog at a time; holds of one node nest; the last release hands it back', async () => {
    const { url } = await seededDatabase();
    const a = nodeOn(url, 'node-a');
    const b = nodeOn(url, 'node-b');
    expect(await a.leases.tryAcquire('one')).toBe(true);
    expect(await a.leases.tryAcquire('one')).toBe(true);
    expect(await b.leases.tryAcquire('one')).toBe(false);
    // Another blog is free.
    expect(await b.leases.tryAcquire('two')).toBe(true);
    await a.leases.release('one');
    expect(await b.leases.tryAcquire('one')).toBe(false);
    await a.leases.release('one');
    expect(await b.leases.tryAcquire('one')).toBe(true);
    expect(await a.leases.tryAcquire('one')).toBe(false);
  });

  it("are taken over once a dead node's lease has expired, never before", async () => {
    const { url, sql } = await seededDatabase();
    const b = nodeOn(url, 'node-b');
    // A node that died holding two blogs: one lease still running, one run out.
    await sql.run("INSERT INTO blog_leases (blog, holder, expires_at) VALUES ('one', 'dead', clock_timestamp() + interval '1 hour')");
    await sql.run("INSERT INTO blog_leases (blog, holder, expires_at) VALUES ('two', 'dead', clock_timestamp() - interval '1 second')");
    expect(await b.leases.tryAcquire('one')).toBe(false);
    expect(await b.leases.tryAcquire('two')).toBe(true);
    expect(await sql.all('SELECT blog, holder FROM blog_leases ORDER BY blog')).toEqual([
      { blog: 'one', holder: 'dead' },
      { blog: 'two', holder: 'node-b' },
    ]);
  });

  it('are renewed while held, and a node that lost one says so', async () => {
    const { url, sql } = await seededDatabase();
    const a = nodeOn(url, 'node-a');
    expect(await a.leases.tryAcquire('one')).toBe(true);
    const before = await sql.get<{ expires_at: Date }>("SELECT expires_at FROM blog_leases WHERE blog = 'one'");
    await sleep(5);
    await a.leases.renew();
    const after = await sql.get<{ expires_at: Date }>("SELECT expires_at FROM blog_leases WHERE blog = 'one'");
    expect(after!.expires_at.getTime()).toBeGreaterThan(before!.expires_at.getTime());
    expect(a.errors).toEqual([]);
    // Taken by another node (as after a stall longer than the lease): the renewal reports it.
    await sql.run("UPDATE blog_leases SET holder = 'node-b' WHERE blog = 'one'");
    await a.leases.renew();
    expect(a.errors).toHaveLength(1);
    expect(a.errors[0]).toMatch(/lost its lease/);
  });

  it('are handed back at close (a drained node), so another node takes the blog at once', async () => {
    const { url } = await seededDatabase();
    const a = nodeOn(url, 'node-a');
    const b = nodeOn(url, 'node-b');
    expect(await a.leases.tryAcquire('one')).toBe(true);
    await a.leases.close();
    expect(await b.leases.tryAcquire('one')).toBe(true);
  });
});

describe('job runners of two nodes on one PostgreSQL', () => {
  it('never run one blog on both nodes at once, and run every job', async () => {
    const { url, sql } = await seededDatabase();
    await sql.run("INSERT INTO blogs (id, account_id, slug, name, created_at, updated_at) VALUES ('b2', 'a1', 'two', 'Two', ?, ?)", [T0, T0]);
    const running = new Map<string, number>();
    let overlaps = 0;
    const handled: number[] = [];
    const handler = async (job: PublishJob) => {
      const now = (running.get(job.blogSlug) ?? 0) + 1;
      running.set(job.blogSlug, now);
      if (now > 1) overlaps++;
      // Long enough for the other node's jobs of the blog to come while this one runs.
      await sleep(15);
      running.set(job.blogSlug, now - 1);
      handled.push(job.id);
    };
    const runners = ['node-a', 'node-b'].map((holder) => {
      const node = nodeOn(url, holder);
      return new JobRunner({ jobs: new JobsRepo(node.sql), handler, clock: systemClock, logger, leases: node.leases });
    });
    const jobs = new JobsRepo(sql);
    const ids: number[] = [];
    const runs: Promise<void>[] = [];
    for (let i = 0; i < 24; i++) {
      const [blogId, blogSlug] = i % 3 === 0 ? ['b2', 'two'] : ['b1', 'one'];
      const id = await jobs.insert({ blogId, blogSlug, kind: 'site', payload: {}, now: T0 });
      ids.push(id);
      // Each request's jobs are run by the node it reached, alternately.
      runs.push(runners[i % 2]!.runNow([id]));
    }
    await Promise.all(runs);
    await Promise.all(runners.map((runner) => runner.idle()));
    expect(overlaps).toBe(0);
    expect([...handled].sort((x, y) => x - y)).toEqual(ids);
    expect(await jobs.countByStatus('pending')).toBe(0);
    // Every lease went back once its blog's work was done.
    expect(await sql.all('SELECT * FROM blog_leases')).toEqual([]);
  });

  it('take over a job whose node died holding its blog, once the lease has run out', async () => {
    const { url, sql } = await seededDatabase();
    const jobs = new JobsRepo(sql);
    const id = await jobs.insert({ blogId: 'b1', blogSlug: 'one', kind: 'site', payload: {}, now: T0 });
    // The dead node's lease still runs; its job stays pending, as a SIGKILL leaves it.
    await sql.run("INSERT INTO blog_leases (blog, holder, expires_at) VALUES ('one', 'dead', clock_timestamp() + interval '1 hour')");
    const b = nodeOn(url, 'node-b');
    const handled: number[] = [];
    const runner = new JobRunner({
      jobs: new JobsRepo(b.sql),
      handler: async (job) => void handled.push(job.id),
      clock: systemClock,
      logger,
      leases: b.leases,
    });
    // The tick does not wait for a held blog...
    await runner.runDue();
    expect(handled).toEqual([]);
    expect((await jobs.findById(id))?.status).toBe('pending');
    // ...and runs the job at the next tick once the lease has expired (its time moved, not waited for).
    await sql.run("UPDATE blog_leases SET expires_at = clock_timestamp() - interval '1 second' WHERE blog = 'one'");
    await runner.runDue();
    await runner.idle();
    expect(handled).toEqual([id]);
    expect((await jobs.findById(id))?.status).toBe('done');
  });
});
