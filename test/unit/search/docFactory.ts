import type { SearchDocument } from '../../../src/search/searchTypes.js';

let counter = 0;

/** A published post for the index; every field can be overridden. */
export function searchDoc(overrides: Partial<SearchDocument> & { id: string }): SearchDocument {
  counter++;
  const slug = overrides.slug ?? `post-${overrides.id}`;
  return {
    slug,
    title: `Post ${overrides.id}`,
    body: '',
    code: '',
    metaDescription: '',
    tags: [],
    createdAt: '2024-01-01T00:00:00.000Z',
    publishedAt: new Date(Date.UTC(2024, 0, 1) + counter * 60_000).toISOString(),
    url: `https://blog.example.com/${slug}/`,
    ...overrides,
  };
}
