import type { PublishJob } from '../../db/jobsRepo.js';

/** Open jobs: a pending job with an error has failed at least once and waits for its retry. */
export function presentPublishing(jobs: PublishJob[]) {
  const failed = jobs.filter((job) => job.status === 'failed' || job.lastError !== null);
  return {
    pending: jobs.filter((job) => job.status === 'pending').length,
    failed: failed.length,
    jobs: jobs.map((job) => ({
      id: job.id,
      kind: job.kind,
      status: job.status === 'pending' && job.lastError !== null ? 'failed' : job.status,
      attempts: job.attempts,
      last_error: job.lastError,
      next_attempt_at: job.status === 'pending' ? job.runAfter : null,
      created_at: job.createdAt,
    })),
  };
}
