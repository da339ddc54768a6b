/**
 * The examples of the operations about readers (discovery across blogs, reader analytics), a
 * part of OPERATION_EXAMPLES (examples.ts) kept apart so that file stays readable.
 */
import { PUBLISHED, SITE, pagination } from './exampleValues.js';

export const READER_EXAMPLES = {
  discoverPosts: {
    response: {
      data: [
        {
          title: 'Sharpening a chisel',
          slug: 'sharpening-a-chisel',
          url: `${SITE}/sharpening-a-chisel`,
          blog: { slug: 'field-notes', name: 'Field Notes', url: `${SITE}/` },
          meta_description: 'Three stones and ten minutes',
          tags: ['tools', 'how-to'],
          lang: 'en',
          published_at: PUBLISHED,
        },
      ],
      pagination,
    },
  },
  getAnalyticsOverview: {
    response: {
      total_views_7d: 412,
      total_views_30d: 1630,
      visitors_7d: 301,
      visitors_30d: 1184,
      top_posts: [
        { slug: 'sharpening-a-chisel', title: 'Sharpening a chisel', views: 920 },
        { slug: 'oiling-a-plane', title: 'Oiling a plane', views: 310 },
      ],
      daily_views: [
        { date: '2026-03-23', views: 58 },
        { date: '2026-03-24', views: 61 },
      ],
      referrers: [
        { host: 'news.ycombinator.com', views: 240 },
        { host: 'newsletter', views: 75 },
      ],
    },
  },
  getPostAnalytics: {
    response: {
      slug: 'sharpening-a-chisel',
      views_7d: 230,
      views_30d: 920,
      visitors_7d: 170,
      visitors_30d: 655,
      daily_views: [
        { date: '2026-03-23', views: 31 },
        { date: '2026-03-24', views: 35 },
      ],
      referrers: [{ host: 'news.ycombinator.com', views: 240 }],
    },
  },
};
