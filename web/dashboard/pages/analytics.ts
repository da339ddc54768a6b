/**
 * `/dashboard/blogs/<id>/analytics`: GET /v1/analytics/overview for the blog: 7 and 30-day
 * totals, the daily views chart (with its table), top posts and referrers. Below the plan that
 * includes analytics the page names that plan instead.
 */
import { api, ApiError } from '../lib/api.js';
import { blogIdOfPage, loadBlog, showPageFailure } from '../lib/blog.js';
import { byId, fill, h } from '../lib/dom.js';
import { describe } from '../lib/feedback.js';
import { planName } from '../lib/plans.js';
import { type DayViews, viewsChart } from '../lib/viewsChart.js';

interface Overview {
  total_views_7d: number;
  total_views_30d: number;
  visitors_7d: number;
  visitors_30d: number;
  top_posts: { slug: string; title: string; views: number }[];
  daily_views: DayViews[];
  referrers: { host: string; views: number }[];
}

const blogId = blogIdOfPage();
const region = byId('analytics-body');

function figure(label: string, value: number): HTMLElement[] {
  return [h('dt', {}, label), h('dd', {}, value.toLocaleString())];
}

function simpleTable(caption: string, headings: [string, string], rows: [Node | string, number][], empty: string): HTMLElement {
  if (rows.length === 0) return h('section', {}, h('h2', {}, caption), h('p', { class: 'muted' }, empty));
  return h(
    'section',
    {},
    h('h2', {}, caption),
    h(
      'table',
      {},
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, headings[0]), h('th', { scope: 'col', class: 'num' }, headings[1]))),
      h(
        'tbody',
        {},
        rows.map(([name, views]) => h('tr', {}, h('td', {}, name), h('td', { class: 'num' }, views.toLocaleString()))),
      ),
    ),
  );
}

function render(o: Overview): void {
  const editor = (slug: string) => `/dashboard/blogs/${encodeURIComponent(blogId)}/posts/${encodeURIComponent(slug)}`;
  fill(
    region,
    h(
      'dl',
      { class: 'totals' },
      figure('Views, last 7 days', o.total_views_7d),
      figure('Views, last 30 days', o.total_views_30d),
      figure('Visitors, last 7 days', o.visitors_7d),
      figure('Visitors, last 30 days', o.visitors_30d),
    ),
    h('section', {}, h('h2', {}, 'Daily views'), viewsChart(o.daily_views, 'Daily views, last 30 days')),
    h(
      'div',
      { class: 'two-columns' },
      simpleTable(
        'Top posts',
        ['Post', 'Views'],
        o.top_posts.map((p) => [h('a', { href: editor(p.slug) }, p.title || p.slug), p.views]),
        'No views in the last 30 days.',
      ),
      simpleTable(
        'Referrers',
        ['Source', 'Views'],
        o.referrers.map((r) => [r.host, r.views]),
        'No referrers in the last 30 days.',
      ),
    ),
  );
}

async function start(): Promise<void> {
  if (!(await loadBlog())) return;
  try {
    const { body } = await api<Overview>('/analytics/overview', { blogId });
    render(body);
  } catch (error) {
    if (error instanceof ApiError && error.status === 403 && typeof error.body.required_plan === 'string') {
      fill(
        region,
        h(
          'p',
          { class: 'panel' },
          `Analytics need the ${planName(error.body.required_plan)} plan or higher. Views are counted for every plan, so they are here as soon as the plan includes them.`,
        ),
      );
      return;
    }
    fill(region, h('p', { role: 'alert' }, describe(error)));
  }
}

start().catch(showPageFailure);
