import type { AnalyticsService } from '../../services/analytics.js';
import { presentOverview, presentPostAnalytics } from '../presenters/analytics.js';
import type { RouteDef } from '../routeDef.js';
import { authOf, blogOf } from '../state.js';

const dailyViews = {
  type: 'array',
  description: 'Exactly the last 30 UTC days, oldest first, today last; a day without views is 0',
  items: { type: 'object', properties: { date: { type: 'string', description: 'YYYY-MM-DD (UTC)' }, views: { type: 'integer' } } },
} as const;

const referrers = {
  type: 'array',
  description: "The last 30 days' sources, most views first (at most 20): referrer hosts, or a page address's ref, source or utm_source value; never full URLs",
  items: { type: 'object', properties: { host: { type: 'string' }, views: { type: 'integer' } } },
} as const;

const visitors = (days: number) =>
  ({ type: 'integer', description: `Sum of the daily unique visitors of the last ${days} days (days cannot be linked)` }) as const;

const overviewSchema = {
  type: 'object',
  properties: {
    total_views_7d: { type: 'integer' },
    total_views_30d: { type: 'integer' },
    visitors_7d: visitors(7),
    visitors_30d: visitors(30),
    top_posts: {
      type: 'array',
      description: 'The 10 posts with the most views in the last 30 days',
      items: { type: 'object', properties: { slug: { type: 'string' }, title: { type: 'string' }, views: { type: 'integer' } } },
    },
    daily_views: dailyViews,
    referrers,
  },
} as const;

const postSchema = {
  type: 'object',
  properties: {
    slug: { type: 'string' },
    views_7d: { type: 'integer' },
    views_30d: { type: 'integer' },
    visitors_7d: visitors(7),
    visitors_30d: visitors(30),
    daily_views: dailyViews,
    referrers,
  },
} as const;

const COUNTED =
  'Views are loads of published pages counted without cookies or scripts (docs/analytics.md); bots, HEAD requests and prefetches are not counted. Counts reach the API within about 10 seconds. Needs the Starter plan or higher (403 with `required_plan`).';

export function analyticsRoutes({ analytics }: { analytics: AnalyticsService }): RouteDef[] {
  return [
    {
      method: 'GET',
      path: '/analytics/overview',
      operationId: 'getAnalyticsOverview',
      summary: "The blog's views and visitors of the last 7 and 30 days, its top posts, daily views and referrers",
      description: `${COUNTED} The blog's totals count its home page and its post pages.`,
      tag: 'analytics',
      scope: 'analytics:read',
      blogScoped: true,
      status: 200,
      response: overviewSchema,
      handler: async (ctx) => {
        ctx.body = presentOverview(await analytics.overview(authOf(ctx), blogOf(ctx)));
      },
    },
    {
      method: 'GET',
      path: '/analytics/posts/:slug',
      operationId: 'getPostAnalytics',
      summary: "One post's views and visitors of the last 7 and 30 days, daily views and referrers",
      description: `${COUNTED} A post that does not exist is 404; a post made a draft keeps the counts it had.`,
      tag: 'analytics',
      scope: 'analytics:read',
      blogScoped: true,
      status: 200,
      response: postSchema,
      handler: async (ctx) => {
        ctx.body = presentPostAnalytics(await analytics.post(authOf(ctx), blogOf(ctx), ctx.params.slug ?? ''));
      },
    },
  ];
}
