import { PORTABLE_SLUG_PATTERN, SLUG_PATTERN } from '../../services/slugs.js';
import { MAX_ALIASES, MAX_ALIAS_LENGTH } from '../../services/aliases.js';
import { nonBlank, nullableTimestamp, pageParam, paginationSchema, timestamp } from './schemaParts.js';

export const MAX_CONTENT_BYTES = 1024 * 1024;

const tags = {
  type: 'array',
  maxItems: 10,
  description: 'Up to 10 tags of at most 50 characters each; each gets a page on the blog (`/tags/<tag>/`)',
  items: { type: 'string', minLength: 1, maxLength: 50, pattern: nonBlank, 'x-hint': 'must not be blank' },
} as const;

const meta = {
  type: 'object',
  additionalProperties: false,
  description: "What the post's page tells search engines and link previews",
  properties: {
    description: {
      type: ['string', 'null'],
      maxLength: 300,
      description: 'The meta description (at most 300 characters); null or absent: made from the start of the content',
    },
    og_image: {
      type: ['string', 'null'],
      maxLength: 2048,
      pattern: '^(https?://\\S+|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$',
      'x-hint': "must be an http(s) URL or the id of an image in the blog's media",
      description: "An http(s) URL, or the id of an image uploaded to the blog's media (stored as its URL; pages use its 1200 × 630 crop)",
    },
  },
} as const;

const postFields = {
  title: { type: 'string', minLength: 1, maxLength: 300, pattern: nonBlank, 'x-hint': 'must not be blank', description: 'The title, at most 300 characters' },
  content: { type: 'string', maxBytes: MAX_CONTENT_BYTES, description: 'Markdown, at most 1 MB (UTF-8 bytes)' },
  slug: {
    type: 'string',
    minLength: 1,
    maxLength: 100,
    pattern: SLUG_PATTERN,
    'x-public-pattern': PORTABLE_SLUG_PATTERN,
    'x-hint': 'must be lower-case letters or digits in words joined by single hyphens',
    description:
      'The address of the post on the blog (`/<slug>/`): words of lower-case letters, letters without case (Hangul, kana, CJK…) and digits, joined by single hyphens (Unicode Ll, Lo and Nd; the published pattern is a portable superset of this rule). Made from the title when not given',
  },
  tags,
  meta,
  published_at: {
    type: 'string',
    minLength: 1,
    maxLength: 64,
    description:
      'When the post was first published, for a post moved from elsewhere: ISO 8601 with a time zone, not in the future; only with status published (or on a published post). Lists, feeds and the sitemap order by it. To publish later, use the schedule operation.',
  },
  aliases: {
    type: 'array',
    maxItems: MAX_ALIASES,
    items: { type: 'string', minLength: 1, maxLength: MAX_ALIAS_LENGTH, pattern: '^/', 'x-hint': 'must be an absolute path on the blog, starting with "/"' },
    description:
      "Old addresses of the post on this blog (such as /2019/05/old-post/ or /2019/05/old-post.html) that answer 301 to it while it is published. Absolute paths, no query or fragment; not the site's own paths; a path another post uses is a 409. On update the list replaces the post's aliases ([] removes them).",
  },
} as const;

export interface PostBodyInput {
  title?: string;
  content?: string;
  slug?: string;
  tags?: string[];
  status?: 'draft' | 'published';
  meta?: { description?: string | null; og_image?: string | null };
  published_at?: string;
  aliases?: string[];
}

export const createPostBody = {
  type: 'object',
  additionalProperties: false,
  required: ['title', 'content'],
  properties: {
    ...postFields,
    status: {
      enum: ['draft', 'published'],
      'x-hint': 'use POST /posts/:slug/schedule to schedule',
      description: '`draft` (the default) or `published` (its page is written before the answer); scheduling is a separate call',
    },
  },
} as const;

export const updatePostBody = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: { ...postFields, status: { enum: ['draft', 'published'], description: '`published` puts the post on the blog, `draft` takes it off' } },
} as const;

export interface ListPostsQuery {
  status?: 'draft' | 'published' | 'scheduled';
  tag?: string;
  page: number;
  per_page: number;
  sort: 'created_at' | 'published_at' | 'updated_at';
  order: 'asc' | 'desc';
}

export const listPostsQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    status: { enum: ['draft', 'published', 'scheduled'], description: 'Only posts in this state' },
    tag: { type: 'string', minLength: 1, maxLength: 50, description: 'Only posts with this tag' },
    page: pageParam,
    per_page: { type: 'integer', minimum: 1, maximum: 100, default: 20, description: 'Posts per page, at most 100' },
    sort: { enum: ['created_at', 'published_at', 'updated_at'], default: 'created_at', description: 'The date to sort by' },
    order: { enum: ['asc', 'desc'], default: 'desc', description: '`desc`: newest first' },
  },
} as const;

export interface ScheduleBody {
  scheduled_at: string;
}

export const scheduleBody = {
  type: 'object',
  additionalProperties: false,
  required: ['scheduled_at'],
  properties: { scheduled_at: { type: 'string', minLength: 1, maxLength: 64, description: 'ISO 8601 datetime with a time zone, in the future' } },
} as const;

const postSummaryProps = {
  id: { type: 'string' },
  title: { type: 'string' },
  slug: { type: 'string' },
  status: { enum: ['draft', 'published', 'scheduled'] },
  tags: { type: 'array', items: { type: 'string' } },
  meta_description: { type: 'string' },
  published_at: nullableTimestamp,
  created_at: timestamp,
  updated_at: timestamp,
} as const;

export const postSummarySchema = { type: 'object', properties: postSummaryProps } as const;

export const postSchema = {
  type: 'object',
  properties: {
    ...postSummaryProps,
    blog_id: { type: 'string' },
    content_md: { type: 'string' },
    content_html: { type: 'string' },
    og_image_url: { type: ['string', 'null'] },
    scheduled_at: nullableTimestamp,
    aliases: { type: 'array', items: { type: 'string' }, description: 'Old addresses that redirect to the post, normalised' },
  },
} as const;

export const postCreatedSchema = {
  type: 'object',
  properties: { id: { type: 'string' }, slug: { type: 'string' }, url: { type: 'string' }, status: { enum: ['draft', 'published'] }, created_at: timestamp },
} as const;

export const postPublishedSchema = {
  type: 'object',
  properties: { id: { type: 'string' }, slug: { type: 'string' }, url: { type: 'string' }, status: { const: 'published' }, published_at: timestamp },
} as const;

export const postScheduledSchema = {
  type: 'object',
  properties: { slug: { type: 'string' }, status: { const: 'scheduled' }, scheduled_at: timestamp },
} as const;

export const postListSchema = {
  type: 'object',
  properties: { data: { type: 'array', items: postSummarySchema }, pagination: paginationSchema },
} as const;
