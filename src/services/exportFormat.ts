/**
 * The account export document (GET /v1/account/export, `folio import`): every blog of an
 * account with its posts as written (Markdown and fields), tags, theme and media list. Plain
 * JSON, stable field names as the API's, so it is also a readable archive.
 */

export const EXPORT_FORMAT = 'folio-export';
export const EXPORT_VERSION = 1;

export interface ExportedPost {
  slug: string;
  title: string;
  content: string;
  tags: string[];
  status: 'draft' | 'published' | 'scheduled';
  /** `description` null: generated from the content (not set by the author). */
  meta: { description: string | null; og_image: string | null };
  published_at: string | null;
  scheduled_at: string | null;
  created_at: string;
  updated_at: string;
  /** Old addresses that redirect to the post (absent in exports made before aliases). */
  aliases?: string[];
}

export interface ExportedMedia {
  id: string;
  url: string;
  width: number;
  height: number;
  content_type: string;
  bytes: number;
  created_at: string;
}

export interface ExportedBlog {
  slug: string;
  name: string;
  description: string;
  theme_config: Record<string, unknown>;
  /** Absent from exports made before discovery (version 1 all the same): read as false. */
  discoverable?: boolean;
  custom_domain: string | null;
  created_at: string;
  updated_at: string;
  posts: ExportedPost[];
  media: ExportedMedia[];
}

export interface ExportDocument {
  format: typeof EXPORT_FORMAT;
  version: number;
  exported_at: string;
  blogs: ExportedBlog[];
}

const nullableString = { type: ['string', 'null'] } as const;
const timestamp = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?Z$' } as const;

/** JSON Schema of the document: the OpenAPI answer of the export, and what `folio import` checks. */
export const exportDocumentSchema = {
  type: 'object',
  required: ['format', 'version', 'exported_at', 'blogs'],
  properties: {
    format: { const: EXPORT_FORMAT },
    version: { const: EXPORT_VERSION },
    exported_at: timestamp,
    blogs: {
      type: 'array',
      items: {
        type: 'object',
        required: ['slug', 'name', 'description', 'theme_config', 'custom_domain', 'created_at', 'updated_at', 'posts', 'media'],
        properties: {
          slug: { type: 'string', minLength: 1, maxLength: 63 },
          name: { type: 'string', minLength: 1, maxLength: 200 },
          description: { type: 'string' },
          theme_config: { type: 'object' },
          discoverable: { type: 'boolean' },
          custom_domain: nullableString,
          created_at: timestamp,
          updated_at: timestamp,
          posts: {
            type: 'array',
            items: {
              type: 'object',
              required: ['slug', 'title', 'content', 'tags', 'status', 'meta', 'published_at', 'scheduled_at', 'created_at', 'updated_at'],
              properties: {
                slug: { type: 'string', minLength: 1 },
                title: { type: 'string', minLength: 1 },
                content: { type: 'string' },
                tags: { type: 'array', items: { type: 'string' } },
                status: { enum: ['draft', 'published', 'scheduled'] },
                meta: { type: 'object', required: ['description', 'og_image'], properties: { description: nullableString, og_image: nullableString } },
                published_at: { type: ['string', 'null'] },
                scheduled_at: { type: ['string', 'null'] },
                created_at: timestamp,
                updated_at: timestamp,
                aliases: { type: 'array', items: { type: 'string' } },
              },
            },
          },
          media: {
            type: 'array',
            items: {
              type: 'object',
              required: ['id', 'url', 'width', 'height', 'content_type', 'bytes', 'created_at'],
              properties: {
                id: { type: 'string' },
                url: { type: 'string' },
                width: { type: 'integer' },
                height: { type: 'integer' },
                content_type: { type: 'string' },
                bytes: { type: 'integer' },
                created_at: timestamp,
              },
            },
          },
        },
      },
    },
  },
} as const;
