import { PREVIEW_LINK_SECONDS } from '../../domain/previewLinks.js';
import { MAX_CONTENT_BYTES } from './posts.schema.js';
import { timestamp } from './schemaParts.js';

export const previewBody = {
  type: 'object',
  additionalProperties: false,
  required: ['content_md'],
  properties: {
    content_md: { type: 'string', maxBytes: MAX_CONTENT_BYTES, description: "Markdown, at most 1 MB (UTF-8 bytes), as a post's `content`" },
  },
} as const;

export interface PreviewBody {
  content_md: string;
}

export const previewSchema = {
  type: 'object',
  required: ['html', 'base_url'],
  properties: {
    html: { type: 'string', description: "Exactly the HTML the published post page's content region will hold (sanitised; the blog's images root-relative)" },
    base_url: { type: 'string', description: "The blog's origin: root-relative URLs in `html` resolve against it" },
  },
} as const;

export const previewLinkBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    expires_in: {
      type: 'integer',
      minimum: PREVIEW_LINK_SECONDS.min,
      maximum: PREVIEW_LINK_SECONDS.max,
      default: PREVIEW_LINK_SECONDS.default,
      description: 'Seconds until the link stops working: from 60 to 30 days (2,592,000); 7 days when absent',
    },
  },
} as const;

export interface PreviewLinkBody {
  expires_in?: number;
}

export const previewLinkSchema = {
  type: 'object',
  required: ['url', 'expires_at'],
  properties: {
    url: { type: 'string', description: 'The preview page on the API host; shown only in this answer' },
    expires_at: timestamp,
  },
} as const;
