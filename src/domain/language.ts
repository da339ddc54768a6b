/**
 * What a post's text is made of, in one pass over its characters: the page language (`ko`
 * when Hangul dominates, else `en`, for `<html lang>`, `og:locale`, feeds and the theme's
 * labels) and the counts reading time is estimated from. It runs once per post page, so it
 * scans character codes instead of running Unicode-property regexes over every word, which
 * would make a full render of a large blog several times slower.
 */

export type Language = 'ko' | 'en';

export interface TextCounts {
  /** Words holding at least one Hangul character (Korean 어절). */
  hangulWords: number;
  /** Words with Latin letters and no Hangul. */
  latinWords: number;
  /** Hangul characters: Korean reading speed is measured in them. */
  hangulChars: number;
  /** Words with letters or digits other than Hangul (`useEffect를` counts here and above). */
  otherWords: number;
}

const SEPARATOR = 0;
const WORD_CHAR = 1;
const LATIN = 2;
const HANGUL = 3;

const ASCII_KINDS = new Uint8Array(128);
for (let code = 0x30; code <= 0x39; code += 1) ASCII_KINDS[code] = WORD_CHAR;
for (let code = 0x41; code <= 0x5a; code += 1) ASCII_KINDS[code] = ASCII_KINDS[code + 0x20] = LATIN;

const OTHER_WORD_CHAR = /[\p{L}\p{M}\p{N}]/u;

function kindOf(code: number): number {
  if (code < 0x80) return ASCII_KINDS[code]!;
  if (
    (code >= 0xac00 && code <= 0xd7a3) ||
    (code >= 0x1100 && code <= 0x11ff) ||
    (code >= 0x3130 && code <= 0x318f) ||
    (code >= 0xa960 && code <= 0xa97f) ||
    (code >= 0xd7b0 && code <= 0xd7ff)
  ) {
    return HANGUL;
  }
  if (code >= 0xc0 && code <= 0x24f && code !== 0xd7 && code !== 0xf7) return LATIN;
  return OTHER_WORD_CHAR.test(String.fromCharCode(code)) ? WORD_CHAR : SEPARATOR;
}

/**
 * V8 keeps a concatenated string as a tree ("cons string"), and reading one char code at a
 * time makes it flatten the tree again and again.
 * Any regex run flattens the string in place first.
 */
function flatten(text: string): string {
  text.search(/^/);
  return text;
}

const HAS_HANGUL = 1;
const HAS_LATIN = 2;
const HAS_OTHER = 4;

/** Adds the counts of `text` to `counts`. */
export function countText(text: string, counts: TextCounts): TextCounts {
  const flat = flatten(text);
  let word = 0;
  const end = (): void => {
    if (word & HAS_HANGUL) counts.hangulWords += 1;
    else if (word & HAS_LATIN) counts.latinWords += 1;
    if (word & (HAS_LATIN | HAS_OTHER)) counts.otherWords += 1;
    word = 0;
  };
  for (let i = 0; i < flat.length; i += 1) {
    const kind = kindOf(flat.charCodeAt(i));
    if (kind === HANGUL) {
      counts.hangulChars += 1;
      word |= HAS_HANGUL;
    } else if (kind === LATIN) {
      word |= HAS_LATIN;
    } else if (kind === WORD_CHAR) {
      word |= HAS_OTHER;
    } else if (word !== 0) {
      // An apostrophe inside a word (don't, it’s) does not end it.
      const code = flat.charCodeAt(i);
      if ((code === 0x27 || code === 0x2019) && kindOf(flat.charCodeAt(i + 1)) !== SEPARATOR) continue;
      end();
    }
  }
  if (word !== 0) end();
  return counts;
}

export function emptyCounts(): TextCounts {
  return { hangulWords: 0, latinWords: 0, hangulChars: 0, otherWords: 0 };
}

/**
 * Counts words rather than characters: a Korean word (어절) carries about as much as an
 * English one, so a Korean post that quotes English terms (`useEffect를 쓰면`) is still
 * detected as Korean, and an English post with one Korean phrase stays English. A word
 * holding any Hangul counts as Korean; ties go to Korean because Latin words leak in from
 * product names and code far more often than Hangul leaks into English text.
 */
export function languageOf(counts: TextCounts): Language {
  return counts.hangulWords > 0 && counts.hangulWords >= counts.latinWords ? 'ko' : 'en';
}

/** Language of some texts taken together (a blog's name, description and titles). */
export function detectLanguage(...texts: string[]): Language {
  const counts = emptyCounts();
  for (const text of texts) countText(text, counts);
  return languageOf(counts);
}

/**
 * Markdown parts that are not prose: fenced code, inline code, link and image destinations,
 * bare URLs and HTML tags. A Korean post full of code samples is still a Korean post.
 *
 * One pass over the lines, each pattern linear: this runs on every write of up to 1 MB of
 * untrusted Markdown, where a backtracking regex (long runs of `<`, backticks, `~` or `](`)
 * would hold the server for seconds. Fence runs are
 * forced to their full length by a lookahead, so no run is ever retried shorter; every other
 * scan stops at the next character that could start another match, so scans never overlap.
 * An unclosed fence runs to the end of the document, as in CommonMark.
 */
const FENCE_OPEN = /^ {0,3}(`{3,}(?!`)|~{3,}(?!~))/;
const FENCE_CLOSE = /^ {0,3}(`{3,}(?!`)|~{3,}(?!~))[ \t]*$/;
const INLINE_NOISE = /`[^`\n]+`|\]\([^()\]\n]*\)|https?:\/\/\S+|<[^<>\n]+>/g;

export function stripMarkdownNoise(markdown: string): string {
  const prose: string[] = [];
  let fence: string | null = null;
  for (let start = 0; start <= markdown.length; ) {
    const newline = markdown.indexOf('\n', start);
    const end = newline < 0 ? markdown.length : newline;
    const line = markdown.slice(start, end);
    start = end + 1;
    if (fence !== null) {
      const close = FENCE_CLOSE.exec(line)?.[1];
      // A fence closes with at least as many of the same character (CommonMark 4.5).
      if (close !== undefined && close[0] === fence[0] && close.length >= fence.length) fence = null;
      continue;
    }
    const open = FENCE_OPEN.exec(line)?.[1];
    if (open !== undefined) fence = open;
    else prose.push(line.replace(INLINE_NOISE, ' '));
  }
  return prose.join('\n');
}

/** Counts of a post's prose: its title and its Markdown without code, URLs and tags. */
export function countPostText(post: { title: string; contentMd: string }): TextCounts {
  const counts = countText(post.title, emptyCounts());
  return countText(stripMarkdownNoise(post.contentMd), counts);
}

export function detectPostLanguage(post: { title: string; contentMd: string }): Language {
  return languageOf(countPostText(post));
}
