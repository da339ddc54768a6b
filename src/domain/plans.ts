/** One table of plan capabilities and limits, the plan table of docs/cli.md; every plan check reads it. */
import type { ThemeConfig } from './siteTypes.js';
import { groupDigits } from './groupDigits.js';

export const PLANS = ['free', 'starter', 'creator', 'scale', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

export type Capability = 'theme:basic' | 'theme:html' | 'domains' | 'schedule' | 'analytics';

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
  analytics: 'starter',
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

/** One line of what a plan allows, printed when an account is made (`folio account create`, first start). */
export function planSummary(plan: Plan): string {
  const { maxBlogs, requestsPerHour } = LIMITS[plan];
  const blogs = Number.isFinite(maxBlogs) ? `${maxBlogs} blog${maxBlogs === 1 ? '' : 's'}` : 'unlimited blogs';
  const yes = (capability: Capability, what: string): string => `${planIncludes(plan, capability) ? '' : 'no '}${what}`;
  return [
    blogs,
    yes('domains', 'custom domains'),
    yes('schedule', 'scheduling'),
    yes('theme:basic', 'custom CSS'),
    yes('theme:html', 'header/footer HTML'),
    `${groupDigits(requestsPerHour)} API requests/hour`,
  ].join(', ');
}

export function planIncludes(plan: Plan, capability: Capability): boolean {
  return PLANS.indexOf(plan) >= PLANS.indexOf(MINIMUM_PLAN[capability]);
}

/** The capability each theme_config key needs, both to be set and to be rendered. */
const THEME_CAPABILITY: Record<keyof ThemeConfig, Capability> = {
  customCss: 'theme:basic',
  adCode: 'theme:basic',
  cssUrl: 'theme:basic',
  headerHtml: 'theme:html',
  footerHtml: 'theme:html',
};

function isThemeKey(key: string): key is keyof ThemeConfig {
  return Object.hasOwn(THEME_CAPABILITY, key);
}

/** The capability setting this theme_config key needs; null for a key that is not a theme key. */
export function themeKeyCapability(key: string): Capability | null {
  return isThemeKey(key) ? THEME_CAPABILITY[key] : null;
}

/**
 * The part of a stored theme that the plan renders. A downgrade keeps the stored keys (an
 * upgrade brings them back, and the API still shows them), but pages only ever carry what the
 * account's current plan includes.
 */
export function allowedTheme(plan: Plan, theme: ThemeConfig): ThemeConfig {
  const allowed: ThemeConfig = {};
  for (const key of Object.keys(theme)) {
    if (!isThemeKey(key) || !planIncludes(plan, THEME_CAPABILITY[key])) continue;
    const value = theme[key];
    if (value !== undefined) allowed[key] = value;
  }
  return allowed;
}
