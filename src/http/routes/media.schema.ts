import { pageParam, paginationSchema, timestamp } from './schemaParts.js';

/** Media ids are UUIDs (lower case, as the API writes them). */
export const MEDIA_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const listMediaQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    page: pageParam,
    per_page: { type: 'integer', minimum: 1, maximum: 100, default: 20, description: 'Images per page, at most 100' },
  },
} as const;

export interface ListMediaQuery {
  page: number;
  per_page: number;
}

const imageRef = {
  type: 'object',
  required: ['width', 'height', 'content_type', 'url'],
  properties: {
    width: { type: 'integer' },
    height: { type: 'integer' },
    content_type: { type: 'string' },
    url: { type: 'string', format: 'uri' },
  },
} as const;

export const mediaSchema = {
  type: 'object',
  required: ['id', 'url', 'width', 'height', 'content_type', 'bytes', 'stored_bytes', 'created_at', 'variants', 'og_image'],
  properties: {
    id: { type: 'string' },
    url: { type: 'string', format: 'uri', description: 'The image at full size, re-encoded in its own format (metadata such as EXIF and GPS removed)' },
    width: { type: 'integer' },
    height: { type: 'integer' },
    content_type: { enum: ['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'image/avif'] },
    bytes: { type: 'integer', description: 'Size of the upload as sent' },
    stored_bytes: { type: 'integer', description: 'Size of every object stored for it (full size, variants, og:image crop)' },
    created_at: timestamp,
    variants: {
      type: 'array',
      description: 'Narrower copies for srcset: 480, 960 and 1600 px wide where the image is wider, in AVIF, WebP and its own format',
      items: imageRef,
    },
    og_image: { ...imageRef, description: '1200 × 630 JPEG crop for og:image' },
  },
} as const;

export const mediaListSchema = {
  type: 'object',
  required: ['data', 'pagination'],
  properties: { data: { type: 'array', items: mediaSchema }, pagination: paginationSchema },
} as const;
