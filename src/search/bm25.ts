/**
 * The arithmetic of BM25 as both searches do it: the API's (ranking.ts) and the browser's on the
 * static site (static/staticQuery.ts, compiled into the `/search/` page's script). One copy of
 * the operations, in one order, is what makes a post's score the same number on both sides.
 * No imports: the page's script is this file's text (publish/render/searchScript.ts).
 */

export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

/** A term's idf over `docs` live posts, `df` of which hold it. */
export function idfOf(docs: number, df: number): number {
  return Math.log(1 + (docs - df + 0.5) / (df + 0.5));
}

/** A term's weight before the frequency: idf·(k1 + 1). */
export function termWeightOf(idf: number): number {
  return idf * (BM25_K1 + 1);
}

/** k1·(1 − b + b·len/avglen) of a post whose field-weighted length is `length`. */
export function lengthNormOf(length: number, averageLength: number): number {
  return BM25_K1 * (1 - BM25_B + (BM25_B * length) / averageLength);
}

/** One term's share of a post's score, `tf` in occurrences (a code word counts half). */
export function termScoreOf(weight: number, tf: number, norm: number): number {
  return (weight * tf) / (tf + norm);
}
