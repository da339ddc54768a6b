import type { SiteUrls } from '../../domain/siteUrls.js';
import type { AddressRateLimiter } from '../../services/addressRateLimiter.js';
import { MAX_DISCOVERY_RESULTS, type DiscoveryIndex } from '../../search/discovery/ports.js';
import { presentPagination } from '../presenters/pagination.js';
import type { RouteDef } from '../routeDef.js';
import { discoverQuery, discoverResponse, type DiscoverQuery } from './discover.schema.js';
import { groupDigits } from '../../domain/groupDigits.js';

/** Requests per minute one client address may make to GET /v1/discover (docs/api-behaviour.md). */
export const DISCOVER_LIMIT = { requests: 60, windowMs: 60_000 } as const;

/**
 * Public discovery across blogs: no key, so readers are not tracked (no cookie, nothing stored
 * of the address beyond the rate limiter's minute), limited per client address instead.
 */
export function discoverRoutes({ discovery, urls, limiter }: { discovery: DiscoveryIndex; urls: SiteUrls; limiter: AddressRateLimiter }): RouteDef[] {
  return [
    {
      method: 'GET',
      path: '/discover',
      operationId: 'discoverPosts',
      summary: 'Search the published posts of every blog that opted in to discovery',
      description: `Needs no key. Searches the published posts of the blogs whose owners set \`discoverable: true\` (PUT /v1/blogs/{id}), with the words and rules of \`GET /v1/search\` (every word must match; Korean particles understood), newest first. \`tag\` and \`lang\` narrow it. A query reaches its first ${groupDigits(MAX_DISCOVERY_RESULTS)} results: \`total\` counts at most that many, and later pages are empty. Limited per client address (${DISCOVER_LIMIT.requests} a minute, with the usual X-RateLimit headers and 429).`,
      tag: 'discover',
      rateLimit: 'address',
      addressLimiter: limiter,
      query: discoverQuery,
      status: 200,
      response: discoverResponse,
      handler: async (ctx) => {
        const q = ctx.state.query as DiscoverQuery;
        const { hits, total } = await discovery.search({ q: q.q, tag: q.tag, lang: q.lang, page: q.page, perPage: q.per_page });
        ctx.body = {
          data: hits.map((hit) => ({
            title: hit.title,
            slug: hit.slug,
            url: urls.post(hit.blog, hit.slug),
            blog: { slug: hit.blog.slug, name: hit.blog.name, url: urls.blog(hit.blog) },
            meta_description: hit.metaDescription,
            tags: hit.tags,
            lang: hit.lang,
            published_at: hit.publishedAt,
          })),
          pagination: presentPagination(q.page, q.per_page, total),
        };
      },
    },
  ];
}
