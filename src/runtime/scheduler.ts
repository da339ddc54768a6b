import { createRequire } from 'node:module';
import type { ScheduledTask } from 'node-cron';
import { SingleFlight } from '../lib/singleFlight.js';
import type { Logger } from '../lib/logger.js';

// node-cron is required only when a backup schedule is configured: loading it and scheduling
// with it block the event loop, right when the first requests arrive.
const requireModule = createRequire(import.meta.url);

export interface SchedulerJobs {
  /** Due scheduled posts and publish-job retries; runs every second. */
  everySecond: () => Promise<unknown>;
  /** Custom-domain DNS checks and recording what to warm after a restart; runs every minute. */
  everyMinute: () => Promise<unknown>;
  /** Database snapshots into the store, on FOLIO_BACKUP_INTERVAL's schedule (UTC). */
  backup?: { cron: string; run: () => Promise<unknown> };
}

/**
 * Timer wiring only: each tick calls a plain function (tests call those directly). The two fixed
 * ticks are plain intervals; the backup schedule, a cron expression, goes through node-cron. A
 * tick that is still running when the next one fires is skipped rather than stacked.
 */
export function startScheduler(jobs: SchedulerJobs, logger: Logger): { stop: () => Promise<void> } {
  const running = new SingleFlight<string, unknown>();
  const guard = (name: string, fn: () => Promise<unknown>) => () => {
    if (running.has(name)) return;
    void running.load(name, () => fn().catch((err: unknown) => logger.error({ err, tick: name }, 'scheduler tick failed')));
  };
  const intervals = [setInterval(guard('second', jobs.everySecond), 1000), setInterval(guard('minute', jobs.everyMinute), 60_000)];
  let backup: ScheduledTask | undefined;
  if (jobs.backup) {
    const cron = requireModule('node-cron') as typeof import('node-cron');
    backup = cron.schedule(jobs.backup.cron, guard('backup', jobs.backup.run), { noOverlap: true, timezone: 'Etc/UTC' });
  }
  return {
    stop: async () => {
      for (const interval of intervals) clearInterval(interval);
      await backup?.stop();
      await running.idle();
    },
  };
}
