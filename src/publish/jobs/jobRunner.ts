import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { Clock } from '../../lib/clock.js';
import type { JobsRepo, PublishJob } from '../../db/jobsRepo.js';
import { KeyedQueue } from '../../lib/keyedQueue.js';
import type { Logger } from '../../lib/logger.js';
import type { JobMetrics } from '../../metrics/metricTypes.js';
import { soleNode, whileHolding, type BlogLeases } from './blogLeases.js';

/** Carries out one job. Throwing leaves the job pending for a later retry. */
export type JobHandler = (job: PublishJob) => Promise<void>;

const MAX_BACKOFF_MS = 5 * 60 * 1000;

/**
 * What a whole-blog job's turn gives the post jobs waiting behind it (runBeside): the batch's
 * keys, or null when the batch must wait for its own turn after all (it would render the whole
 * blog again) and nothing was done.
 */
export type RunBeside = (jobs: readonly PublishJob[]) => Promise<readonly string[] | null>;

/** What runBeside did: the keys the batch rendered or deleted, or why it ran nothing. */
export type BesideOutcome = { ran: true; keys: readonly string[] } | { ran: false; again: boolean };

/** Jobs folded into one run at most, by default: a batch holds its blog for a bounded time. */
export const MAX_BATCH = 200;

/**
 * Carries out consecutive jobs of one blog together (post changes: their shared pages render
 * once). Throwing leaves every job of the batch pending.
 */
export interface BatchHandler {
  /** Whether jobs of this kind fold into a batch; a job of another kind ends one. */
  folds(kind: PublishJob['kind']): boolean;
  /**
   * Whether folding jobs run beside a full render (runBeside) may go ahead of a pending job of
   * this kind, which otherwise ends their run; without it, none.
   */
  passes?(kind: PublishJob['kind']): boolean;
  run(jobs: readonly PublishJob[]): Promise<void>;
  /** The most jobs of one run (MAX_BATCH unless configured). */
  max?: number;
}

export interface JobRunnerDeps {
  jobs: JobsRepo;
  handler: JobHandler;
  /** Without it every job runs alone. */
  batch?: BatchHandler | undefined;
  clock: Clock;
  logger: Logger;
  metrics?: JobMetrics | undefined;
  /** Which node runs a blog's jobs (several nodes on PostgreSQL); without, this process runs them all. */
  leases?: BlogLeases | undefined;
}

/**
 * How long a request's jobs wait while another node holds their blog (it runs them there, in its
 * batch, or hands the blog back). After that they are left to the tick, on whichever node.
 */
const MAX_WAIT_FOR_BLOG_MS = 30_000;

/**
 * Runs durable publish jobs: right after the request that recorded them commits, and again from
 * the background tick until they succeed. Jobs of one blog run one at a time, in id order, so
 * the store ends up reflecting the newest state even when requests race; with several nodes, on
 * the node holding the blog's lease (blogLeases.ts).
 */
export class JobRunner {
  /** Each blog's jobs, one at a time. */
  private readonly perBlog = new KeyedQueue<string>();
  private readonly inFlight = new Set<number>();
  /** Queued jobs an earlier batch already ran (or tried): their own turn only answers. */
  private readonly ranInBatch = new Set<number>();
  /** Background starts still reading their jobs, before they are queued: idle() waits for them too. */
  private readonly starting = new Set<Promise<void>>();
  /** Jobs a request waits for (from before they are read to the end of their turn): runBeside answers them early. */
  private readonly answers = new Map<number, { answered: Promise<void>; answer: () => void }>();

  constructor(private readonly deps: JobRunnerDeps) {}

  /** Runs the given jobs now. Never throws: a failure is recorded and retried later. */
  async runNow(ids: readonly number[]): Promise<void> {
    for (const id of ids) {
      // Asked for before the job is read: runBeside may run it meanwhile, and answers it then.
      const answered = this.answerOf(id);
      let queued = false;
      try {
        const job = await this.deps.jobs.findById(id);
        if (job?.status !== 'pending') continue;
        queued = true;
        await Promise.race([this.enqueue(job, true), answered]);
      } finally {
        if (!queued) this.answers.delete(id);
      }
    }
  }

  /**
   * Starts the jobs without waiting: whole-site work (theme change, domain, blog deletion) must
   * not hold the HTTP request. Failures are recorded by `execute` and retried by the tick.
   */
  runInBackground(ids: readonly number[]): void {
    if (ids.length === 0) return;
    // A job's own failure is stored on its row; one that could not even be read stays pending,
    // and the tick runs it.
    const started = this.runNow(ids).catch((err: unknown) => this.deps.logger.warn({ err, jobs: ids }, 'publish jobs not started now; the tick runs them'));
    this.starting.add(started);
    void started.then(() => this.starting.delete(started));
  }

  /** The background tick: retries jobs whose backoff has passed. Returns how many ran. */
  async runDue(limit = 100): Promise<number> {
    const due = (await this.deps.jobs.listDue(this.deps.clock.now().toISOString(), limit)).filter((job) => !this.inFlight.has(job.id));
    // A blog another node holds is left to it: the tick does not wait.
    await Promise.all(due.map((job) => this.enqueue(job, false)));
    return due.length;
  }

  /** Whether this process has jobs of the blog running or queued. */
  busy(blogId: string): boolean {
    return this.perBlog.busy(blogId);
  }

  /** Settles once the blog's jobs queued in this process so far have run. */
  settled(blogId: string): Promise<void> {
    return this.perBlog.settled(blogId);
  }

  /** Resolves when every job started so far has finished (tests and shutdown). */
  async idle(): Promise<void> {
    while (this.starting.size > 0) await Promise.all([...this.starting]);
    await this.perBlog.idle();
  }

  /**
   * Runs now, as one batch, the post jobs of the blog recorded after `running` (a whole-blog job,
   * between two chunks of its render) and answers their requests: a big blog's full render takes
   * a while, and its publishes need not wait for it (pipelines/rebuildSite.ts says how the render
   * keeps out of their way). Jobs are taken in id order up to the first of another kind, so kinds
   * keep their order, except that they pass the kinds the batch handler lets them (`passes`);
   * their own turns, queued behind `running`, then find them done. `again` is false when nothing
   * should be asked for again during this render: a batch failed (its jobs back off as in their
   * own turn) or must wait for its turn after all.
   */
  async runBeside(running: PublishJob, run: RunBeside): Promise<BesideOutcome> {
    const { batch, jobs } = this.deps;
    if (!batch) return { ran: false, again: false };
    const waiting: PublishJob[] = [];
    for (const pending of await jobs.pendingFrom(running.blogId, running.id + 1, batch.max ?? MAX_BATCH)) {
      if (batch.folds(pending.kind)) waiting.push(pending);
      else if (!batch.passes?.(pending.kind)) break;
    }
    if (waiting.length === 0) return { ran: false, again: true };
    const started = Date.now();
    let keys: readonly string[] | null = null;
    let failure: unknown = null;
    try {
      keys = await run(waiting);
    } catch (err) {
      failure = err;
    }
    if (failure === null && keys === null) return { ran: false, again: false };
    await this.record(waiting, failure, started);
    for (const job of waiting) {
      // A failed batch tried them: their turn leaves them to the tick, as after a batch of their own.
      if (failure !== null && this.inFlight.has(job.id)) this.ranInBatch.add(job.id);
      this.answers.get(job.id)?.answer();
    }
    return failure === null && keys ? { ran: true, keys } : { ran: false, again: false };
  }

  private enqueue(job: PublishJob, wait: boolean): Promise<void> {
    if (this.inFlight.has(job.id)) return this.perBlog.settled(job.blogId);
    this.inFlight.add(job.id);
    return this.perBlog
      .run(job.blogId, () => this.executeHolding(job, wait))
      .finally(() => {
        this.inFlight.delete(job.id);
        this.answers.delete(job.id);
      });
  }

  /**
   * Settles when runBeside has run the job (never, if its own turn runs it): a request's job may
   * be run beside a whole-blog job ahead of it, and is answered then.
   */
  private answerOf(id: number): Promise<void> {
    let entry = this.answers.get(id);
    if (!entry) {
      let answer = () => {};
      const answered = new Promise<void>((resolve) => {
        answer = resolve;
      });
      entry = { answered, answer };
      this.answers.set(id, entry);
    }
    return entry.answered;
  }

  /** Runs the job holding its blog; while another node holds it, waits (a request's jobs) or leaves it. */
  private async executeHolding(job: PublishJob, wait: boolean): Promise<void> {
    const leases = this.deps.leases ?? soleNode;
    try {
      await whileHolding(leases, job.blogSlug, () => this.execute(job), {
        maxWaitMs: wait ? MAX_WAIT_FOR_BLOG_MS : 0,
        // Done on the node that holds the blog (in its batch): nothing left to wait for.
        settled: async () => (await this.deps.jobs.findById(job.id))?.status !== 'pending',
      });
    } catch (err) {
      // The lease could not be asked for (the database is unavailable): the job stays pending.
      this.deps.logger.warn({ err, job: job.id, blog: job.blogSlug }, 'publish job not started (its blog could not be taken); it will run again');
    }
  }

  private async execute(job: PublishJob): Promise<void> {
    const { jobs } = this.deps;
    const ranInBatch = this.ranInBatch.delete(job.id);
    // Another runner (or an earlier retry) may have finished it while this one waited its turn.
    const current = await jobs.findById(job.id);
    // A batch that failed tried it since it was queued: its error is recorded, the tick retries it.
    if (current?.status !== 'pending' || ranInBatch) return;
    const batch = await this.batchFrom(current);
    const started = Date.now();
    let failure: unknown = null;
    try {
      // A job starts in a turn of the event loop of its own, not on the tail of the request
      // that committed it: waiting requests get in between the two.
      await yieldToLoop();
      if (batch.length > 1 && this.deps.batch) await this.deps.batch.run(batch);
      else await this.deps.handler(current);
    } catch (err) {
      failure = err;
    }
    await this.record(batch, failure, started);
  }

  /** Marks a run's jobs done, or failed with a backoff before their retry. */
  private async record(batch: readonly PublishJob[], failure: unknown, started: number): Promise<void> {
    const { jobs, clock, logger, metrics } = this.deps;
    const job = batch[0]!;
    for (const member of batch) metrics?.observeJob(member.kind, failure === null ? 'done' : 'failed', (Date.now() - started) / 1000);
    try {
      if (failure === null) {
        await jobs.markAllDone(
          batch.map((member) => member.id),
          clock.now().toISOString(),
        );
        logger.debug({ job: job.id, jobs: batch.length, kind: job.kind, blog: job.blogSlug, ms: Date.now() - started }, 'publish job done');
        return;
      }
      const message = failure instanceof Error ? failure.message : String(failure);
      const now = clock.now();
      for (const member of batch) {
        const delay = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** Math.min(member.attempts, 16));
        await jobs.markAttemptFailed(member.id, message, new Date(now.getTime() + delay).toISOString(), now.toISOString(), false);
      }
      logger.warn(
        { job: job.id, jobs: batch.length, kind: job.kind, blog: job.blogSlug, attempt: job.attempts + 1, err: message },
        'publish job failed; will retry',
      );
    } catch (err) {
      // The job's row could not be updated (another process holds the database's write lock):
      // it stays pending and due, and runs again at the next tick. Jobs are idempotent.
      logger.warn({ job: job.id, kind: job.kind, blog: job.blogSlug, err }, 'publish job state not recorded; it will run again');
    }
  }

  /**
   * The job and the consecutive pending jobs of its blog recorded after it that fold with it
   * (up to MAX_BATCH; a job of another kind ends the run, so kinds keep their order). The ones
   * queued here behind it are marked so their turn does not run them again.
   */
  private async batchFrom(job: PublishJob): Promise<PublishJob[]> {
    const { batch } = this.deps;
    if (!batch?.folds(job.kind)) return [job];
    const run: PublishJob[] = [];
    for (const pending of await this.deps.jobs.pendingFrom(job.blogId, job.id, batch.max ?? MAX_BATCH)) {
      if (!batch.folds(pending.kind)) break;
      run.push(pending);
    }
    if (run[0]?.id !== job.id) return [job];
    for (const member of run) if (member.id !== job.id && this.inFlight.has(member.id)) this.ranInBatch.add(member.id);
    return run;
  }
}
