/**
 * The discovery index's words are /v1/search's: the same tokenizer and Korean stems, applied
 * before the text reaches the database, whose own tokenizer then only splits on the spaces
 * between them. So matching is whole-term and AND, as in a blog's own search.
 */
import type { Language } from '../../domain/language.js';
import { queryTerms, termOf, tokenize } from '../tokenize.js';

/** The columns a query's words are looked for in (not `filters`). */
const TEXT_COLUMNS = '{title tags description body code}';

/** The terms of a text, space-separated, as the index stores them. */
export function termsText(text: string): string {
  return tokenize(text).map(termOf).join(' ');
}

/**
 * One token per filter value, ASCII letters and digits only (a tag is hex-encoded whole), so the
 * index's tokenizer keeps it in one piece and a tag filter is an exact match, as post_tags is.
 */
const langToken = (lang: Language): string => `l${lang}`;
const tagToken = (tag: string): string => `t${Buffer.from(tag, 'utf8').toString('hex')}`;

/** The filter tokens of a post, one per language and tag. */
export function filterTokenList(lang: Language, tags: readonly string[]): string[] {
  return [langToken(lang), ...tags.map(tagToken)];
}

/** The `filters` column of a post. */
export function filterTokens(lang: Language, tags: readonly string[]): string {
  return filterTokenList(lang, tags).join(' ');
}

/**
 * A full-text match of every word of `q` in the text columns, and of the filters given, or null
 * when `q` holds no word at all. Each term is quoted, so nothing of the query syntax is reachable;
 * terms hold only letters, digits and marks (tokenize.ts), never a double quote.
 */
export function discoveryMatch(q: string, filters: { tag?: string | undefined; lang?: Language | undefined } = {}): string | null {
  const terms = queryTerms(q);
  if (terms.length === 0) return null;
  const parts = [`${TEXT_COLUMNS} : (${terms.map((term) => `"${term}"`).join(' AND ')})`];
  if (filters.lang) parts.push(`{filters} : "${langToken(filters.lang)}"`);
  if (filters.tag !== undefined) parts.push(`{filters} : "${tagToken(filters.tag)}"`);
  return parts.join(' AND ');
}

/**
 * What discoveryMatch asks for, as data rather than FTS5 syntax (for a database that builds its
 * own query, such as PostgreSQL): every term of `q` in the text, every filter token among the
 * post's filters; null when `q` holds no word at all, as discoveryMatch.
 */
export function discoveryCriteria(
  q: string,
  filters: { tag?: string | undefined; lang?: Language | undefined } = {},
): { terms: string[]; filters: string[] } | null {
  const terms = queryTerms(q);
  if (terms.length === 0) return null;
  const tokens: string[] = [];
  if (filters.lang) tokens.push(langToken(filters.lang));
  if (filters.tag !== undefined) tokens.push(tagToken(filters.tag));
  return { terms, filters: tokens };
}
