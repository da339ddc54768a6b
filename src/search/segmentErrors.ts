/** The stored index was written in a format this build does not read. */
export class SearchIndexFormatError extends Error {
  constructor(
    readonly key: string,
    /** What is wrong, without the key and advice (what a worker thread sends back). */
    readonly problem: string,
  ) {
    super(`${key}: ${problem}; rebuild the blog's search index (folio search reindex <blog>)`);
    this.name = 'SearchIndexFormatError';
  }
}
