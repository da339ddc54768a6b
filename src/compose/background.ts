import type { BlogsRepo } from '../db/blogsRepo.js';
import type { JobRunner } from '../publish/jobs/jobRunner.js';
import type { Publishing } from '../publish/publishing.js';
import type { PostTransitions } from '../services/postTransitions.js';
import type { StoreWatch } from '../services/storeWatch.js';
import type { WebhookDispatcher } from '../webhooks/dispatcher.js';
import type { SearchIndexWriter } from '../search/searchIndexWriter.js';
import type { Backups } from '../backup/backups.js';
import type { WarmUp } from '../warmup/warmUp.js';
import type { HeavyWork } from '../heavyWork/heavyWork.js';
import type { Checkpointer } from '../db/checkpointer.js';
import type { ExpiredSignIns } from '../services/expiredSignIns.js';
import type { Analytics } from './analytics.js';
import type { BlogLeases } from '../publish/jobs/blogLeases.js';

/** The scheduler's per-second work: due schedules, due webhook retries, due job retries. */
export async function tick(parts: {
  storeWatch: StoreWatch;
  transitions: PostTransitions;
  blogs: BlogsRepo;
  dispatcher: WebhookDispatcher;
  runner: JobRunner;
  expiredSignIns: Pick<ExpiredSignIns, 'prune'>;
}): Promise<void> {
  await parts.storeWatch.check();
  await parts.expiredSignIns.prune();
  await parts.transitions.publishDue(parts.blogs);
  // Retries come due with time; sends run in the background, never holding the tick.
  parts.dispatcher.deliverDue();
  await parts.runner.runDue();
}

export interface Background {
  publisher: Pick<Publishing, 'idle'>;
  backups: Pick<Backups, 'idle'>;
  searchWriter: Pick<SearchIndexWriter, 'idle'>;
  dispatcher: Pick<WebhookDispatcher, 'idle'>;
}

/**
 * Resolves once nothing runs in the background. Publishing first (its jobs, then the static
 * search writes they start): a job starts index writes, never the reverse.
 */
export async function idle(parts: Background): Promise<void> {
  await parts.publisher.idle();
  await parts.backups.idle();
  await parts.searchWriter.idle();
  await parts.dispatcher.idle();
}

/**
 * Deliveries get their grace period, then are cut off (they stay pending for the next start);
 * every other piece of background work finishes before the worker threads and the database go.
 */
export async function close(
  parts: Background & {
    dispatcher: Pick<WebhookDispatcher, 'close'>;
    warmUp: Pick<WarmUp, 'remember'>;
    heavy: Pick<HeavyWork, 'close'>;
    media: { close(): Promise<void> };
    siteStore: { close(): Promise<void> };
    checkpointer: Checkpointer;
    database: { close(): Promise<void> };
    analytics: Pick<Analytics, 'stop'>;
    leases: Pick<BlogLeases, 'close'>;
  },
): Promise<void> {
  await parts.dispatcher.close();
  await idle(parts);
  // Nothing of a blog is being written any more: other nodes may take its jobs at once.
  await parts.leases.close();
  // The server stopped answering: the last counts are written before the database closes.
  await parts.analytics.stop();
  await parts.warmUp.remember();
  await parts.heavy.close();
  await parts.media.close();
  // Every write has landed: a start after this one need not look for leftover temp files.
  await parts.siteStore.close();
  await parts.checkpointer.stop();
  await parts.database.close();
}
