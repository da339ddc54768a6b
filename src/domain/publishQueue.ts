/**
 * What the services need of the publish job runner (src/publish/jobs/jobRunner.ts): run the jobs a
 * request has just recorded. Declared here so that services/ does not import publish/.
 */
export interface PublishQueue {
  /** Runs the jobs now; never throws (a failure is recorded on the job and retried later). */
  runNow(ids: readonly number[]): Promise<void>;
  /** Starts the jobs without waiting for them. */
  runInBackground(ids: readonly number[]): void;
}
