/** Schema fragments shared by several routes. */

export const timestamp = { type: 'string', description: 'ISO 8601 UTC with milliseconds' } as const;
export const nullableTimestamp = { type: ['string', 'null'], description: 'ISO 8601 UTC with milliseconds' } as const;

export const pageParam = { type: 'integer', minimum: 1, maximum: 1_000_000, default: 1, description: 'Page to return, from 1' } as const;

export const paginationSchema = {
  type: 'object',
  properties: {
    page: { type: 'integer' },
    per_page: { type: 'integer' },
    total: { type: 'integer' },
    total_pages: { type: 'integer' },
  },
} as const;

/** `{data: [item, …]}`: the list answers without pagination. */
export const dataListSchema = <T>(items: T) => ({ type: 'object', properties: { data: { type: 'array', items } } }) as const;

export const deletedSchema = { type: 'object', properties: { deleted: { type: 'boolean', const: true } } } as const;

/** A string that is not only white space. */
export const nonBlank = '\\S';
