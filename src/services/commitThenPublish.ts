import type { Db } from '../db/database.js';
import { writeTransaction } from '../db/writeTransaction.js';
import type { PublishQueue } from '../domain/publishQueue.js';

/** Hands the id of a publish job the change inserted to `commitThenPublish`. */
export type RecordJob = (jobId: number) => void;

/**
 * Runs `change` in a write transaction, then the publish jobs it recorded: a job renders from
 * the rows the change wrote, so it may start only once they are committed, and a change that
 * rolled back starts none. `await` answers once the jobs ran (a post is live when its request
 * answers); `background` starts them without holding the request (whole-site work).
 */
export async function commitThenPublish<T>(
  deps: { db: Db; runner: PublishQueue },
  change: (record: RecordJob) => T,
  run: 'await' | 'background' = 'await',
): Promise<T> {
  const jobIds: number[] = [];
  const result = await writeTransaction(deps.db, () => change((jobId) => jobIds.push(jobId)));
  if (run === 'background') deps.runner.runInBackground(jobIds);
  else await deps.runner.runNow(jobIds);
  return result;
}
