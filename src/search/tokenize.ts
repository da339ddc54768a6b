/**
 * The one tokenizer of the search index, used when indexing AND when querying
 * (the `simple` configuration: no stemming, no stop words; docs/search.md).
 *
 * NFKC, lower case, split on anything that is not a Unicode letter, digit or combining mark,
 * and split again where Latin (or any other non-Hangul script) meets Hangul, so `SQLite에서`
 * is found by `sqlite`. A Hangul run glued to a foreign word that is only a particle (`에서`,
 * `로는`) is dropped. The output never contains `*`, `:`, `~`, `^`, `+` or `-`, which is what
 * keeps lunr's wildcard and fuzzy matching out of reach of user text.
 */
import { hangulStem, isBareEnding } from './koreanStems.js';

/** Longer tokens (base64 blobs, hashes) are dropped at index and query time alike. */
export const MAX_TOKEN_LENGTH = 64;

const SEPARATOR = 0;
const WORD = 1;
const HANGUL = 2;
const MARK = 3;
const UNKNOWN = 255;

const LETTER_OR_DIGIT = /^[\p{L}\p{N}]$/u;
const COMBINING_MARK = /^\p{M}$/u;

// Classes of the Basic Multilingual Plane, filled on first sight: the Unicode property
// regexes are far too slow to run per character over megabytes of text.
const bmpClass = new Uint8Array(0x10000).fill(UNKNOWN);
for (let c = 0; c < 0x80; c++) {
  bmpClass[c] = (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) ? WORD : SEPARATOR;
}
const astralClass = new Map<number, number>();

function isHangul(cp: number): boolean {
  return (
    (cp >= 0xac00 && cp <= 0xd7a3) || // syllables
    (cp >= 0x1100 && cp <= 0x11ff) || // jamo
    (cp >= 0x3130 && cp <= 0x318f) || // compatibility jamo
    (cp >= 0xa960 && cp <= 0xa97f) || // jamo extended-A
    (cp >= 0xd7b0 && cp <= 0xd7ff) // jamo extended-B
  );
}

function classify(cp: number): number {
  if (isHangul(cp)) return HANGUL;
  const ch = String.fromCodePoint(cp);
  if (LETTER_OR_DIGIT.test(ch)) return WORD;
  if (COMBINING_MARK.test(ch)) return MARK;
  return SEPARATOR;
}

function classOf(cp: number): number {
  if (cp < 0x10000) {
    let c = bmpClass[cp]!;
    if (c === UNKNOWN) {
      c = classify(cp);
      bmpClass[cp] = c;
    }
    return c;
  }
  let c = astralClass.get(cp);
  if (c === undefined) {
    c = classify(cp);
    astralClass.set(cp, c);
  }
  return c;
}

/**
 * Splits text into search tokens, as written (`termOf` then gives the indexed term). Works on
 * the NFKC, lower-cased text.
 */
export function tokenize(text: string): string[] {
  const s = text.normalize('NFKC').toLowerCase();
  const out: string[] = [];
  let start = -1;
  let runClass = SEPARATOR;
  // Class of the run that ended right where the current one started, with no separator in
  // between: a Hangul run after a Latin one may be a bare particle (`koa로`).
  let gluedTo = SEPARATOR;

  const emit = (end: number): void => {
    if (start < 0) return;
    const token = s.slice(start, end);
    start = -1;
    if (token.length > MAX_TOKEN_LENGTH) return;
    if (runClass === HANGUL && gluedTo === WORD && isBareEnding(token)) return;
    out.push(token);
  };

  for (let i = 0; i < s.length; ) {
    const cp = s.codePointAt(i)!;
    const width = cp > 0xffff ? 2 : 1;
    let c = classOf(cp);
    // A combining mark belongs to the letter before it; alone it separates nothing useful.
    if (c === MARK) c = start >= 0 ? runClass : SEPARATOR;
    if (c === SEPARATOR) {
      emit(i);
      gluedTo = SEPARATOR;
      runClass = SEPARATOR;
    } else if (start < 0) {
      start = i;
      runClass = c;
    } else if (c !== runClass) {
      const previous = runClass;
      emit(i);
      gluedTo = previous;
      start = i;
      runClass = c;
    }
    i += width;
  }
  emit(s.length);
  return out;
}

/**
 * The term a token is indexed and searched under. Only Hangul words change: they lose their
 * particles and endings (koreanStems.ts). Index pipeline and queries both call this.
 */
export function termOf(token: string): string {
  return hangulStem(token);
}

/** The terms of a query: tokenized and reduced exactly as documents are, each once, in order. */
export function queryTerms(q: string): string[] {
  return [...new Set(tokenize(q).map(termOf))];
}
