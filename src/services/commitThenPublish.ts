import type { SqlClient, SqlTransaction } from '../db/sql/sqlClient.js';
import type { PublishQueue } from '../domain/publishQueue.js';

/** Hands the id of a publish job the change inserted to `commitThenPublish`. */
export type RecordJob = (jobId: number) => void;

/**
 * Runs `change` in a write transaction, then the publish jobs it recorded: a job renders from
 * the rows the change wrote, so it may start only once they are committed, and a change that
 * rolled back starts none. `await` answers once the jobs ran (a post is live when its request
 * answers); `background` starts them without holding the request (whole-site work). `change`
 * queries through `tx` only (repo.in(tx)), and may run more than once (PostgreSQL retries
 * conflicts): only the last run's jobs are started.
 */
export async function commitThenPublish<T>(
  deps: { sql: SqlClient; runner: PublishQueue },
  change: (tx: SqlTransaction, record: RecordJob) => Promise<T>,
  run: 'await' | 'background' = 'await',
): Promise<T> {
  let jobIds: number[] = [];
  const result = await deps.sql.transaction((tx) => {
    const ids: number[] = [];
    jobIds = ids;
    return change(tx, (jobId) => ids.push(jobId));
  });
  if (run === 'background') deps.runner.runInBackground(jobIds);
  else await deps.runner.runNow(jobIds);
  return result;
}
