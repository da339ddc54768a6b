/** One table of plan capabilities and limits (api.md §8, decisions.md "Rate limits"). */

export const PLANS = ['free', 'starter', 'creator', 'scale', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

export type Capability = 'theme:basic' | 'theme:html' | 'domains' | 'schedule';

interface PlanLimits {
  maxBlogs: number;
  requestsPerHour: number;
}

const LIMITS: Record<Plan, PlanLimits> = {
  free: { maxBlogs: 1, requestsPerHour: 60 },
  starter: { maxBlogs: 1, requestsPerHour: 300 },
  creator: { maxBlogs: 3, requestsPerHour: 1_000 },
  scale: { maxBlogs: 5, requestsPerHour: 10_000 },
  enterprise: { maxBlogs: Number.POSITIVE_INFINITY, requestsPerHour: 100_000 },
};

/** The lowest plan that includes each capability. */
const MINIMUM_PLAN: Record<Capability, Plan> = {
  'theme:basic': 'starter',
  'theme:html': 'creator',
  domains: 'starter',
  schedule: 'creator',
};

export function isPlan(value: unknown): value is Plan {
  return typeof value === 'string' && (PLANS as readonly string[]).includes(value);
}

export function planLimits(plan: Plan): PlanLimits {
  return LIMITS[plan];
}

export function minimumPlan(capability: Capability): Plan {
  return MINIMUM_PLAN[capability];
}

export function planIncludes(plan: Plan, capability: Capability): boolean {
  return PLANS.indexOf(plan) >= PLANS.indexOf(MINIMUM_PLAN[capability]);
}
