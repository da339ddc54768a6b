import type { BlogSearcher } from '../search/ports.js';

/** A BlogSearcher that reports each query's duration (folio_search_duration_seconds), failed ones too. */
export function timedSearcher(inner: BlogSearcher, observe: (seconds: number) => void): BlogSearcher {
  return {
    search: async (blogSlug, q, options) => {
      const started = performance.now();
      try {
        return await inner.search(blogSlug, q, options);
      } finally {
        observe((performance.now() - started) / 1000);
      }
    },
  };
}
