import type { Overview, Window } from '../../services/analytics.js';

/** The fields Postlark names, plus visitors and referrers (docs/analytics.md "API"). */
function presentWindow(window: Window) {
  return {
    daily_views: window.daily.map((d) => ({ date: d.day, views: d.views })),
    referrers: window.referrers.map((r) => ({ host: r.host, views: r.views })),
  };
}

export function presentOverview(overview: Overview) {
  return {
    total_views_7d: overview.views7d,
    total_views_30d: overview.views30d,
    visitors_7d: overview.visitors7d,
    visitors_30d: overview.visitors30d,
    top_posts: overview.topPosts.map((p) => ({ slug: p.slug, title: p.title, views: p.views })),
    ...presentWindow(overview),
  };
}

export function presentPostAnalytics(post: Window & { slug: string }) {
  return {
    slug: post.slug,
    views_7d: post.views7d,
    views_30d: post.views30d,
    visitors_7d: post.visitors7d,
    visitors_30d: post.visitors30d,
    ...presentWindow(post),
  };
}
