import { createRequire } from 'node:module';
import type { ScheduledTask } from 'node-cron';
import type { Logger } from './logger.js';

// Required when the scheduler starts, after the server listens: its import is a tenth of the
// time to the first answer otherwise.
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
 * node-cron wiring only: each tick calls a plain function (tests call those directly). A tick
 * that is still running when the next one fires is skipped rather than stacked.
 */
export function startScheduler(jobs: SchedulerJobs, logger: Logger): { stop: () => Promise<void> } {
  const cron = requireModule('node-cron') as typeof import('node-cron');
  const running = new Map<string, Promise<unknown>>();
  const guard = (name: string, fn: () => Promise<unknown>) => () => {
    if (running.has(name)) return;
    const run = fn()
      .catch((err: unknown) => logger.error({ err, tick: name }, 'scheduler tick failed'))
      .finally(() => running.delete(name));
    running.set(name, run);
  };
  const tasks: ScheduledTask[] = [
    cron.schedule('* * * * * *', guard('second', jobs.everySecond), { noOverlap: true }),
    cron.schedule('0 * * * * *', guard('minute', jobs.everyMinute), { noOverlap: true }),
  ];
  if (jobs.backup) tasks.push(cron.schedule(jobs.backup.cron, guard('backup', jobs.backup.run), { noOverlap: true, timezone: 'Etc/UTC' }));
  return {
    stop: async () => {
      for (const task of tasks) await task.stop();
      await Promise.all(running.values());
    },
  };
}
