/**
 * A daily views chart drawn from data as inline SVG: role=img with a title and a description
 * that says the figures, and a table of the same numbers beside it for those who prefer one.
 * Sizes are SVG attributes and colours classes, so the strict CSP (no inline style) holds.
 */
import { h, svg } from './dom.js';

export interface DayViews {
  date: string;
  views: number;
}

const WIDTH = 600;
const HEIGHT = 160;
const AXIS = 20;

export function viewsChart(days: DayViews[], caption: string): HTMLElement {
  const max = Math.max(1, ...days.map((d) => d.views));
  const step = WIDTH / Math.max(1, days.length);
  const total = days.reduce((sum, d) => sum + d.views, 0);
  const peak = days.reduce<DayViews | null>((best, d) => (best === null || d.views > best.views ? d : best), null);
  const description = `${total.toLocaleString()} views over ${days.length} days${peak && peak.views > 0 ? `; the most, ${peak.views.toLocaleString()}, on ${peak.date}` : ''}.`;
  const bars = days.map((day, i) => {
    const height = Math.round(((HEIGHT - AXIS) * day.views) / max);
    return svg(
      'rect',
      { class: 'bar', x: (i * step + 1).toFixed(1), y: HEIGHT - AXIS - height, width: Math.max(1, step - 2).toFixed(1), height },
      svg('title', {}, `${day.date}: ${day.views}`),
    );
  });
  const first = days[0]?.date ?? '';
  const last = days[days.length - 1]?.date ?? '';
  const chart = svg(
    'svg',
    { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: 'img', 'aria-labelledby': 'chart-title chart-desc', class: 'chart', preserveAspectRatio: 'none' },
    svg('title', { id: 'chart-title' }, caption),
    svg('desc', { id: 'chart-desc' }, description),
    svg('line', { class: 'axis', x1: 0, x2: WIDTH, y1: HEIGHT - AXIS, y2: HEIGHT - AXIS }),
    bars,
    svg('text', { class: 'axis-label', x: 2, y: HEIGHT - 4 }, first),
    svg('text', { class: 'axis-label', x: WIDTH - 2, y: HEIGHT - 4, 'text-anchor': 'end' }, last),
    svg('text', { class: 'axis-label', x: 2, y: 12 }, `${max.toLocaleString()} max`),
  );
  const table = h(
    'details',
    {},
    h('summary', {}, 'Show the figures as a table'),
    h(
      'table',
      { class: 'numbers' },
      h('caption', {}, caption),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Day (UTC)'), h('th', { scope: 'col' }, 'Views'))),
      h(
        'tbody',
        {},
        days.map((d) => h('tr', {}, h('th', { scope: 'row' }, d.date), h('td', {}, d.views.toLocaleString()))),
      ),
    ),
  );
  return h('figure', { class: 'views-chart' }, chart, h('figcaption', { class: 'muted' }, description), table);
}
