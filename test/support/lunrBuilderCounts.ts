/**
 * The reference for segmentData.ts's term counts: what a `lunr.Builder` with empty pipelines
 * counts for the same fields and weights. Production counts directly (lunr's Builder also built
 * an inverted index with metadata that was thrown away); tests compare the two.
 */
import lunr from 'lunr';
import { INDEX_FIELDS, type IndexFieldName } from '../../src/search/lunrSetup.js';

/** One document as the builder receives it: each field already reduced to its terms (`termOf`). */
export type TokenizedFields = Record<IndexFieldName, string[]>;

interface TokenizerSlot {
  tokenizer: (value: unknown) => unknown[];
}

interface BuilderCounts {
  /** Keyed by lunr FieldRef strings, `<field>/<ref>`. */
  fieldTermFrequencies: Record<string, Record<string, number>>;
}

export interface BuiltCounts {
  /** Per document (by ref order of insertion): term → field-weighted term frequency. */
  termFrequencies: Map<string, number>[];
}

/**
 * Feeds documents through a lunr Builder configured as above and returns, per document, the
 * weighted term frequencies it counted. `build()` is not called: it would compute BM25 vectors
 * with this batch's own idf, which cannot be compared across segments (README.md, "Scoring").
 */
export function countTerms(docs: readonly TokenizedFields[]): BuiltCounts {
  const builder = new lunr.Builder();
  builder.pipeline.reset();
  builder.searchPipeline.reset();
  builder.ref('ref');
  for (const field of INDEX_FIELDS) builder.field(field.name);
  // Fields arrive as arrays of finished terms, handed to the Builder as they are. With no
  // metadata whitelisted and an empty pipeline, lunr 2.3.9 (pinned) only uses a token as a
  // property key, where a string is what a lunr.Token would turn into anyway: wrapping 15
  // million terms of a 10,000-post rebuild in Token objects (and converting them back on every
  // key lookup) was 40% of the Builder's time. segmentCounts.test.ts checks the counts.
  (builder as unknown as TokenizerSlot).tokenizer = (value) => (Array.isArray(value) ? value : []);

  const counts = (builder as unknown as BuilderCounts).fieldTermFrequencies;
  const termFrequencies: Map<string, number>[] = [];
  docs.forEach((fields, i) => {
    const ref = String(i);
    builder.add({ ref, ...fields });
    // Fold this document's per-field counts into weighted counts while they are fresh.
    const tf = new Map<string, number>();
    for (const field of INDEX_FIELDS) {
      const fieldCounts = counts[`${field.name}/${ref}`];
      if (!fieldCounts) continue;
      for (const term in fieldCounts) tf.set(term, (tf.get(term) ?? 0) + field.weight * fieldCounts[term]!);
    }
    termFrequencies.push(tf);
  });
  return { termFrequencies };
}
