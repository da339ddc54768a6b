/**
 * Estimated reading time. Korean is read by characters (about 500 Hangul syllables a minute),
 * Latin-script text by words (about 230 a minute); a mixed post adds both. Only prose counts:
 * code blocks, URLs and markup are left out (see stripMarkdownNoise), as readers skim a code
 * listing rather than read it word by word.
 */
import { countText, emptyCounts, stripMarkdownNoise, type TextCounts } from './language.js';

export const HANGUL_CHARS_PER_MINUTE = 500;
export const WORDS_PER_MINUTE = 230;

/** Whole minutes, at least 1, from counts made by countText or countPostText. */
export function minutesFromCounts(counts: TextCounts): number {
  return Math.max(1, Math.round(counts.hangulChars / HANGUL_CHARS_PER_MINUTE + counts.otherWords / WORDS_PER_MINUTE));
}

/** Whole minutes, at least 1, from a post's Markdown source. */
export function readingMinutes(markdown: string): number {
  return minutesFromCounts(countText(stripMarkdownNoise(markdown), emptyCounts()));
}
