/**
 * The author side of analytics: GET /v1/analytics/overview and /v1/analytics/posts/:slug read the
 * daily aggregates (docs/analytics.md). Starter plan or higher.
 */
import type { AnalyticsRepo, DayViews, HostViews, PostViews, Subject } from '../db/analyticsRepo.js';
import type { PostsRepo } from '../db/postsRepo.js';
import type { BlogWithDomain } from '../domain/blog.js';
import { ForbiddenError, NotFoundError } from '../domain/errors.js';
import { minimumPlan, planIncludes } from '../domain/plans.js';
import type { Clock } from '../lib/clock.js';
import { dayBefore, utcDay } from '../analytics/visitorHash.js';
import type { AuthContext } from './authContext.js';

const TOP_POSTS = 10;
const TOP_REFERRERS = 20;
const DAILY_DAYS = 30;

export interface Window {
  views7d: number;
  views30d: number;
  visitors7d: number;
  visitors30d: number;
  /** Exactly the last 30 UTC days, oldest first, today last; days without views are 0. */
  daily: DayViews[];
  /** The 30 days' referrer hosts, most views first. */
  referrers: HostViews[];
}

export interface Overview extends Window {
  topPosts: PostViews[];
}

export class AnalyticsService {
  constructor(private readonly deps: { analytics: AnalyticsRepo; posts: Pick<PostsRepo, 'findBySlug'>; clock: Clock }) {}

  async overview(auth: AuthContext, blog: BlogWithDomain): Promise<Overview> {
    requireAnalytics(auth);
    const window = await this.window({ blogId: blog.id });
    return { ...window, topPosts: await this.deps.analytics.topPosts(blog.id, this.since(DAILY_DAYS), TOP_POSTS) };
  }

  /** A post of the blog, published or not (a draft keeps the counts it had while published). */
  async post(auth: AuthContext, blog: BlogWithDomain, slug: string): Promise<Window & { slug: string }> {
    requireAnalytics(auth);
    const post = await this.deps.posts.findBySlug(blog.id, slug);
    if (!post) throw new NotFoundError(`post "${slug}" not found`);
    return { slug: post.slug, ...(await this.window({ postId: post.id })) };
  }

  private async window(subject: Subject): Promise<Window> {
    const { analytics } = this.deps;
    const week = await analytics.totals(subject, this.since(7));
    const month = await analytics.totals(subject, this.since(DAILY_DAYS));
    return {
      views7d: week.views,
      views30d: month.views,
      visitors7d: week.visitors,
      visitors30d: month.visitors,
      daily: this.lastDays(await analytics.daily(subject, this.since(DAILY_DAYS))),
      referrers: await analytics.referrers(subject, this.since(DAILY_DAYS), TOP_REFERRERS),
    };
  }

  /** The first day of the last `days` UTC days, today included. */
  private since(days: number): string {
    return dayBefore(utcDay(this.deps.clock.now()), days - 1);
  }

  private lastDays(rows: readonly DayViews[]): DayViews[] {
    const byDay = new Map(rows.map((row) => [row.day, row.views]));
    const today = utcDay(this.deps.clock.now());
    return Array.from({ length: DAILY_DAYS }, (_, i) => {
      const day = dayBefore(today, DAILY_DAYS - 1 - i);
      return { day, views: byDay.get(day) ?? 0 };
    });
  }
}

function requireAnalytics(auth: AuthContext): void {
  if (!planIncludes(auth.account.plan, 'analytics')) {
    throw new ForbiddenError(`analytics need the ${minimumPlan('analytics')} plan or higher`, { requiredPlan: minimumPlan('analytics') });
  }
}
