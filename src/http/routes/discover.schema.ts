import { pageParam, paginationSchema, timestamp } from './schemaParts.js';

/** GET /v1/discover's query. */
export const discoverQuery = {
  type: 'object',
  additionalProperties: false,
  required: ['q'],
  properties: {
    q: { type: 'string', minLength: 1, maxLength: 100, description: 'The words to find (1 to 100 characters); every word must match' },
    tag: { type: 'string', minLength: 1, maxLength: 50, description: 'Only posts with this tag (exact)' },
    lang: { enum: ['en', 'ko'], description: "Only posts in this language (the post page's `lang`: `ko` when Hangul dominates)" },
    page: pageParam,
    per_page: { type: 'integer', minimum: 1, maximum: 50, default: 20, description: 'Results per page, at most 50' },
  },
} as const;

export interface DiscoverQuery {
  q: string;
  tag?: string;
  lang?: 'en' | 'ko';
  page: number;
  per_page: number;
}

const discoveredPost = {
  type: 'object',
  required: ['title', 'slug', 'url', 'blog', 'meta_description', 'tags', 'lang', 'published_at'],
  properties: {
    title: { type: 'string' },
    slug: { type: 'string' },
    url: { type: 'string', description: "The post's public address (the blog's custom domain when active)" },
    blog: {
      type: 'object',
      required: ['slug', 'name', 'url'],
      properties: { slug: { type: 'string' }, name: { type: 'string' }, url: { type: 'string' } },
    },
    meta_description: { type: 'string' },
    tags: { type: 'array', items: { type: 'string' } },
    lang: { enum: ['en', 'ko'] },
    published_at: timestamp,
  },
} as const;

export const discoverResponse = {
  type: 'object',
  required: ['data', 'pagination'],
  properties: { data: { type: 'array', items: discoveredPost }, pagination: paginationSchema },
} as const;
