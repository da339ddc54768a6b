import type { SiteUrls } from '../../domain/siteUrls.js';
import type { BlogSearcher } from '../../search/ports.js';
import type { RouteDef } from '../routeDef.js';
import { blogOf } from '../state.js';
import { presentPagination } from '../presenters/pagination.js';
import { paginationSchema, timestamp } from './schemaParts.js';
import { searchQuery } from './search.schema.js';

interface SearchQuery {
  q: string;
  page: number;
  per_page: number;
}

const resultSchema = {
  type: 'object',
  properties: {
    slug: { type: 'string' },
    title: { type: 'string' },
    meta_description: { type: 'string' },
    tags: { type: 'array', items: { type: 'string' } },
    created_at: timestamp,
    published_at: timestamp,
    url: { type: 'string' },
  },
} as const;

export function searchRoutes({ searcher, urls }: { searcher: BlogSearcher; urls: SiteUrls }): RouteDef[] {
  return [
    {
      method: 'GET',
      path: '/search',
      operationId: 'searchPosts',
      summary: 'Full-text search over the blog’s published posts (all words must match)',
      description:
        "Searches the blog's published posts; every word must match. Korean particles and endings are understood. Ranked as the blog's own search page ranks.",
      tag: 'search',
      scope: 'search:read',
      blogScoped: true,
      query: searchQuery,
      status: 200,
      response: { type: 'object', properties: { data: { type: 'array', items: resultSchema }, pagination: paginationSchema } },
      handler: async (ctx) => {
        const q = ctx.state.query as SearchQuery;
        const blog = blogOf(ctx);
        const { hits, total } = await searcher.search(blog.slug, q.q, { page: q.page, perPage: q.per_page });
        ctx.body = {
          data: hits.map((hit) => ({
            slug: hit.slug,
            title: hit.title,
            meta_description: hit.metaDescription,
            tags: hit.tags,
            created_at: hit.createdAt,
            published_at: hit.publishedAt,
            // Built now rather than read from the index, so a custom domain applies at once.
            url: urls.post(blog, hit.slug),
          })),
          pagination: presentPagination(q.page, q.per_page, total),
        };
      },
    },
  ];
}
