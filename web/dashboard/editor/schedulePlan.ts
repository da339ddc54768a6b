/**
 * Who may schedule: the spec's plan table (Schedule a post: Creator and up), read against the
 * plan GET /v1/account answers. The server refuses anyway (403 with `required_plan`); this only
 * keeps the button from offering what will be refused, and names the plan. No DOM.
 */
const PLANS = ['free', 'starter', 'creator', 'scale', 'enterprise'] as const;
const SCHEDULE_PLAN = 'creator';

const names: Record<string, string> = { free: 'Free', starter: 'Starter', creator: 'Creator', scale: 'Scale', enterprise: 'Enterprise' };

export function planName(plan: string): string {
  return names[plan] ?? plan;
}

export function canSchedule(plan: string): boolean {
  const rank = PLANS.indexOf(plan as (typeof PLANS)[number]);
  return rank >= PLANS.indexOf(SCHEDULE_PLAN);
}

export function scheduleRefusal(plan: string): string {
  return `Scheduling needs the ${planName(SCHEDULE_PLAN)} plan or higher; this account is on the ${planName(plan)} plan.`;
}
