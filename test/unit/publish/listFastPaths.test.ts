/**
 * The shortcuts that keep a list of thousands of posts cheap to render give what the general
 * path gives: a plain slug is its own encoding, a stored UTC timestamp's date is read from its
 * text, and JSON-LD is escaped for a script element in one pass.
 */
import { describe, expect, it } from 'vitest';
import { jsonForScript } from '../../../src/publish/render/renderJsonLd.js';
import { labelsFor } from '../../../src/publish/render/renderLabels.js';
import { encodeSegment } from '../../../src/publish/render/renderPaths.js';

const encodedInFull = (segment: string): string => encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

describe('list shortcuts', () => {
  it("encodes every segment as encodeURIComponent plus ! ' ( ) *", () => {
    for (const segment of ['hello-world', 'a_b.c~d', 'UPPER-123', '', 'c++', "it's (really) *that*!", '한국어-글', 'a b', 'a/b', 'a%20b', '-.~_', 'é'])
      expect(encodeSegment(segment), segment).toBe(encodedInFull(segment));
  });

  it('dates a stored timestamp as Date does in UTC, and any other ISO form through Date', () => {
    for (const lang of ['en', 'ko'] as const) {
      const { formatDate } = labelsFor(lang);
      for (const iso of ['2026-11-30T23:59:59.999Z', '2026-01-01T00:00:00Z', '1999-12-31T12:00:00.5Z', '2024-02-29T08:00:00.000Z']) {
        // The same instant with a written offset is not a stored form: it goes through Date.
        expect(formatDate(iso), iso).toBe(formatDate(iso.replace('Z', '+00:00')));
      }
      expect(formatDate('2026-11-30T23:59:59.999Z')).toContain(lang === 'ko' ? '11월 30일' : '30');
      // An offset is not a stored form: its UTC date is the next day here.
      expect(formatDate('2026-11-30T23:30:00-02:00')).toBe(formatDate('2026-12-01T01:30:00.000Z'));
    }
  });

  it('escapes <, >, &, U+2028 and U+2029 in JSON for a script element, and nothing else', () => {
    const value = { name: '</script><!-- a & b \u2028 \u2029 "quoted" 한국어', list: ['<', '>', '&&'] };
    const escaped = jsonForScript(value);
    expect(escaped).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(escaped)).toEqual(value);
    expect(escaped).toBe(
      JSON.stringify(value)
        .replace(/</g, '\\u003c')
        .replace(/>/g, '\\u003e')
        .replace(/&/g, '\\u0026')
        .replace(/\u2028/g, '\\u2028')
        .replace(/\u2029/g, '\\u2029'),
    );
  });
});
