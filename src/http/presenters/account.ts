import type { Account } from '../../db/accountsRepo.js';
import { planLimits } from '../../domain/plans.js';

/** The account with its plan's limits; a limit the plan does not have (enterprise blogs) is null. */
export function presentAccount(account: Account, blogs: number) {
  const { maxBlogs, requestsPerHour } = planLimits(account.plan);
  return {
    id: account.id,
    email: account.email,
    plan: account.plan,
    created_at: account.createdAt,
    limits: { blogs: Number.isFinite(maxBlogs) ? maxBlogs : null, requests_per_hour: requestsPerHour },
    usage: { blogs },
  };
}
