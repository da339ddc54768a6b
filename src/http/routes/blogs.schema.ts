import { dataListSchema, nonBlank, nullableTimestamp, timestamp } from './schemaParts.js';

import { BLOG_SLUG_PATTERN } from '../../services/slugs.js';

export { BLOG_SLUG_PATTERN };

export const createBlogBody = {
  type: 'object',
  additionalProperties: false,
  required: ['slug', 'name'],
  properties: {
    slug: {
      type: 'string',
      minLength: 1,
      maxLength: 63,
      pattern: BLOG_SLUG_PATTERN,
      'x-hint': 'must be lower-case letters, digits and hyphens, not starting or ending with a hyphen',
      description:
        "The blog's address, `https://<slug>.<service domain>/`: lower-case ASCII letters, digits and hyphens (a DNS label); cannot be changed later",
    },
    name: {
      type: 'string',
      minLength: 1,
      maxLength: 200,
      pattern: nonBlank,
      'x-hint': 'must not be blank',
      description: "The blog's title, at most 200 characters",
    },
    description: { type: 'string', maxLength: 1000, description: 'A line about the blog (at most 1,000 characters), shown under its title and in its feeds' },
    discoverable: {
      type: 'boolean',
      default: false,
      description: 'Whether the published posts are listed by the public discovery across blogs (`GET /v1/discover`); off unless set',
    },
  },
} as const;

export interface CreateBlogBody {
  slug: string;
  name: string;
  description?: string;
  discoverable?: boolean;
}

const html = (max: number, description: string) => ({ type: ['string', 'null'], maxLength: max, description }) as const;

export const themeConfigSchema = {
  type: 'object',
  additionalProperties: false,
  description: 'Merged into the current theme; a key set to null is removed. Each key needs the plan that includes it',
  properties: {
    customCss: html(100_000, "CSS added after the theme's own (at most 100,000 characters)"),
    adCode: html(20_000, 'HTML of an ad placed on post pages (at most 20,000 characters)'),
    cssUrl: {
      type: ['string', 'null'],
      maxLength: 2048,
      pattern: '^https?://\\S+$',
      'x-hint': 'must be an http(s) URL',
      description: "An http(s) style sheet linked after the theme's own",
    },
    headerHtml: html(20_000, 'HTML at the top of every page (at most 20,000 characters)'),
    footerHtml: html(20_000, 'HTML at the bottom of every page (at most 20,000 characters)'),
  },
} as const;

export const updateBlogBody = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    name: createBlogBody.properties.name,
    description: createBlogBody.properties.description,
    theme_config: themeConfigSchema,
    discoverable: {
      type: 'boolean',
      description: 'Opt in (true) or out (false) of the public discovery across blogs (`GET /v1/discover`); an opt-out takes effect with this answer',
    },
  },
} as const;

export interface UpdateBlogBody {
  name?: string;
  description?: string;
  discoverable?: boolean;
  theme_config?: Record<string, string | null>;
}

const blogProps = {
  id: { type: 'string' },
  slug: { type: 'string' },
  name: { type: 'string' },
  description: { type: 'string' },
  url: { type: 'string' },
  custom_domain: { type: ['string', 'null'] },
  theme_config: { type: 'object' },
  discoverable: { type: 'boolean' },
  created_at: timestamp,
  updated_at: timestamp,
} as const;

const pick = <K extends keyof typeof blogProps>(...keys: K[]) =>
  ({ type: 'object', properties: Object.fromEntries(keys.map((k) => [k, blogProps[k]])) }) as const;

/** Each operation answers its own set of fields (GET /blogs/:id all of them). */
export const blogSchema = { type: 'object', properties: blogProps } as const;
export const blogCreatedSchema = pick('id', 'slug', 'name', 'url', 'discoverable', 'created_at');
export const blogUpdatedSchema = pick('id', 'slug', 'name', 'description', 'custom_domain', 'theme_config', 'discoverable', 'updated_at');
export const blogListSchema = dataListSchema(pick('id', 'slug', 'name', 'description', 'custom_domain', 'discoverable', 'created_at', 'updated_at'));

export const publishingSchema = {
  type: 'object',
  properties: {
    pending: { type: 'integer' },
    failed: { type: 'integer' },
    jobs: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'integer' },
          kind: { type: 'string' },
          status: { enum: ['pending', 'failed'] },
          attempts: { type: 'integer' },
          last_error: { type: ['string', 'null'] },
          next_attempt_at: nullableTimestamp,
          created_at: timestamp,
        },
      },
    },
  },
} as const;
