import { KEEP_DAILY, KEEP_NEWEST } from '../../services/revisionRecord.js';
import { pageParam, paginationSchema, timestamp } from './schemaParts.js';

export interface ListRevisionsQuery {
  page: number;
  per_page: number;
}

export const listRevisionsQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    page: pageParam,
    per_page: { type: 'integer', minimum: 1, maximum: 100, default: 20, description: 'Revisions per page, at most 100' },
  },
} as const;

const revisionId = { type: 'string', description: 'The revision (a UUID)' } as const;
const revisionTitle = { type: 'string', description: 'The title the post had in this revision' } as const;
const revisionTime = { ...timestamp, description: 'When this text was written: the last change the revision holds (ISO 8601 UTC with milliseconds)' } as const;

export const revisionSummarySchema = {
  type: 'object',
  required: ['id', 'created_at', 'title', 'content_length'],
  properties: {
    id: revisionId,
    created_at: revisionTime,
    title: revisionTitle,
    content_length: { type: 'integer', description: "Size of the revision's Markdown in UTF-8 bytes, as stored (the blog's own images as short references)" },
  },
} as const;

export const revisionListSchema = {
  type: 'object',
  description: `Newest first. Kept: the newest ${KEEP_NEWEST} revisions of the post, and of older ones the last of each UTC day on the ${KEEP_DAILY} most recent such days`,
  properties: { data: { type: 'array', items: revisionSummarySchema }, pagination: paginationSchema },
} as const;

export const revisionSchema = {
  type: 'object',
  required: ['id', 'created_at', 'title', 'content_md'],
  properties: {
    id: revisionId,
    created_at: revisionTime,
    title: revisionTitle,
    content_md: { type: 'string', description: "The Markdown of this revision (the blog's own images on its current origin, as in Get Post)" },
  },
} as const;
