import { describe, expect, it } from 'vitest';
import { firstFreeSlug, isReservedSlug, isValidSlug, PORTABLE_SLUG_PATTERN, SLUG_PATTERN, slugify } from '../../../src/services/slugs.js';

describe('slugify', () => {
  it('lower-cases and joins words with hyphens', () => {
    expect(slugify('Hello, World! Again')).toBe('hello-world-again');
  });

  it('keeps Korean letters so a Korean title gives a Korean slug', () => {
    expect(slugify('안녕 세상: 첫 글')).toBe('안녕-세상-첫-글');
  });

  it('drops punctuation, dots and slashes', () => {
    expect(slugify('Node.js / Koa & SQLite')).toBe('node-js-koa-sqlite');
  });

  it('cuts at a word boundary at 100 characters', () => {
    const slug = slugify('word '.repeat(60));
    expect(slug.length).toBeLessThanOrEqual(100);
    expect(slug.endsWith('-')).toBe(false);
    expect(isValidSlug(slug)).toBe(true);
  });

  it('falls back to "post" for a title without letters or digits', () => {
    expect(slugify('!!! ???')).toBe('post');
  });

  it('always produces a slug that passes the explicit-slug rule', () => {
    for (const title of ['Ünïcödé Straße', 'ÅNGSTRÖM', '日本語のタイトル', 'Ⅻ roman', 'ﬁ ligature']) {
      expect(isValidSlug(slugify(title))).toBe(true);
    }
  });
});

describe('firstFreeSlug', () => {
  it('appends -2, -3 … to a taken generated slug', () => {
    const taken = new Set(['post', 'post-2']);
    expect(firstFreeSlug('post', (s) => !taken.has(s))).toBe('post-3');
  });

  it('never returns a reserved slug', () => {
    expect(isReservedSlug('search')).toBe(true);
    expect(firstFreeSlug('search', () => true)).toBe('search-2');
  });
});

describe('isValidSlug', () => {
  it.each(['Upper', 'a/b', 'a.b', 'a b', '-a', 'a-', 'a--b', ''])('refuses %j', (slug) => {
    expect(isValidSlug(slug)).toBe(false);
  });

  it.each(['a', 'hello-world', '서버-설정', '2026-plans'])('accepts %j', (slug) => {
    expect(isValidSlug(slug)).toBe(true);
  });
});

describe('PORTABLE_SLUG_PATTERN (the slug pattern as the OpenAPI document and MCP tools publish it)', () => {
  it('admits every slug SLUG_PATTERN admits: every code point of a slug word passes, on every plane', () => {
    const exact = /^[\p{Ll}\p{Lo}\p{Nd}]$/u;
    const portable = new RegExp(PORTABLE_SLUG_PATTERN, 'u');
    const refused: string[] = [];
    for (let code = 0; code <= 0x10ffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const char = String.fromCodePoint(code);
      if (exact.test(char) && !portable.test(char)) refused.push(code.toString(16));
    }
    expect(refused).toEqual([]);
    for (const slug of ['hello-world', '한국어-글', 'café-2024', '東京-3'])
      expect(new RegExp(SLUG_PATTERN, 'u').test(slug) && portable.test(slug), slug).toBe(true);
  });

  it('is exact on ASCII and keeps the word structure, with no \\p{…} class', () => {
    const portable = new RegExp(PORTABLE_SLUG_PATTERN);
    for (const slug of ['Hello', 'a_b', 'a b', '-a', 'a-', 'a--b', 'a.b', 'a/b', '']) expect(portable.test(slug), slug).toBe(false);
    expect(PORTABLE_SLUG_PATTERN).not.toMatch(/\\[pP]\{/);
  });
});
