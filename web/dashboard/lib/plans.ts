/**
 * What each plan includes, read from the server's own table (src/domain/plans.ts) so the pages
 * show a capability as disabled with exactly the plan the API would ask for.
 */
import { minimumPlan, planIncludes, type Capability, type Plan, PLANS } from '../../../src/domain/plans.js';

export { minimumPlan, planIncludes, type Capability, type Plan };

export function isPlan(value: unknown): value is Plan {
  return typeof value === 'string' && (PLANS as readonly string[]).includes(value);
}

/** `creator` → `Creator`, as the plans are named to people. */
export function planName(plan: string): string {
  return plan.charAt(0).toUpperCase() + plan.slice(1);
}
