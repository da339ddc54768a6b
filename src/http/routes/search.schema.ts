import { pageParam } from './schemaParts.js';

/** GET /v1/search's query; also the MCP server's search_posts input. */
export const searchQuery = {
  type: 'object',
  additionalProperties: false,
  required: ['q'],
  properties: {
    q: { type: 'string', maxLength: 100, description: 'The words to find (at most 100 characters); every word must match' },
    page: pageParam,
    per_page: { type: 'integer', minimum: 1, maximum: 50, default: 20, description: 'Results per page, at most 50' },
  },
} as const;
