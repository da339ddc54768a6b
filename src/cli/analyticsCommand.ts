/** `folio analytics [slug]`: the numbers of GET /v1/analytics/*, through the API as push and pull. */
import type { Invocation } from './invocation.js';
import { apiClientFromEnv } from './apiClientEnv.js';
import { resolveBlog } from './syncCommands.js';

interface Numbers {
  views_7d: number;
  views_30d: number;
  visitors_7d: number;
  visitors_30d: number;
  daily_views: { date: string; views: number }[];
  referrers: { host: string; views: number }[];
}

export async function analyticsCommand(invocation: Invocation, env: Record<string, string | undefined>): Promise<number> {
  const { client, blogId } = apiClientFromEnv(env);
  const blog = await resolveBlog(client, invocation.values.string('blog') ?? blogId);
  const [slug] = invocation.positionals;
  const answer = slug === undefined ? await client.analyticsOverview(blog.id) : await client.postAnalytics(slug, blog.id);
  if (invocation.values.boolean('json')) {
    process.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
    return 0;
  }
  const numbers: Numbers = 'total_views_7d' in answer ? { ...answer, views_7d: answer.total_views_7d, views_30d: answer.total_views_30d } : answer;
  const lines = [
    `${slug === undefined ? blog.slug : `${blog.slug}/${slug}`}: ${numbers.views_7d} views (${numbers.visitors_7d} visitors) in 7 days, ${numbers.views_30d} views (${numbers.visitors_30d} visitors) in 30 days`,
  ];
  if ('top_posts' in answer && answer.top_posts.length > 0) {
    lines.push('top posts (30 days):', ...answer.top_posts.map((p) => `  ${String(p.views).padStart(7)}  ${p.slug}`));
  }
  if (numbers.referrers.length > 0) lines.push('referrers (30 days):', ...numbers.referrers.map((r) => `  ${String(r.views).padStart(7)}  ${r.host}`));
  lines.push('daily views (30 days, oldest first):', `  ${numbers.daily_views.map((d) => d.views).join(' ')}`);
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
