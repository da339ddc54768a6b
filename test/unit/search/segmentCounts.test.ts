import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { INDEX_FIELDS, WEIGHT_UNIT } from '../../../src/search/lunrSetup.js';
import type { SearchDocument } from '../../../src/search/searchTypes.js';
import { termOf, tokenize } from '../../../src/search/tokenize.js';
import { countTerms, type TokenizedFields } from '../../support/lunrBuilderCounts.js';
import { buildSegmentData } from '../../../src/search/segmentData.js';
import { searchDoc } from './docFactory.js';

/** term → [ordinal, weighted tf in occurrences][] read back from a built segment (stored in WEIGHT_UNITs). */
function postings(data: ReturnType<typeof buildSegmentData>): Record<string, [number, number][]> {
  // No prototype: `__proto__` is a term like any other.
  const out = Object.create(null) as Record<string, [number, number][]>;
  data.terms.forEach((term, t) => {
    const list: [number, number][] = [];
    for (let j = data.offsets[t]!; j < data.offsets[t + 1]!; j++) list.push([data.postingDocs[j]!, data.postingTfs[j]! / WEIGHT_UNIT]);
    out[term] = list;
  });
  return out;
}

/** A post's fields as lunr's Builder would receive them: tokenized, each token reduced to its term. */
function tokenized(doc: SearchDocument): TokenizedFields {
  const terms = (text: string): string[] => tokenize(text).map(termOf);
  return { title: terms(doc.title), tags: doc.tags.flatMap(terms), description: terms(doc.metaDescription), body: terms(doc.body), code: terms(doc.code) };
}

describe('term counts of a segment', () => {
  it('counts every occurrence, weighted by field: title 3, tags 2, description 1, body 1', () => {
    const data = buildSegmentData([
      searchDoc({ id: 'a', title: 'Koa server', tags: ['server'], metaDescription: 'A server', body: 'server server koa' }),
      searchDoc({ id: 'b', title: 'Other', body: 'koa' }),
    ]);
    const p = postings(data);
    // a: title 3×1 + tags 2×1 + description 1×1 + body 1×2 = 8
    expect(p['server']).toEqual([[0, 8]]);
    // a: title 3 + body 1; b: body 1
    expect(p['koa']).toEqual([
      [0, 4],
      [1, 1],
    ]);
    expect(p['other']).toEqual([[1, 3]]);
    // Weighted lengths: a = 3×2 + 2×1 + 1×2 + 1×3 = 13; b = 3×1 + 1×1 = 4
    expect([...data.docs.lengths].map((l) => l / WEIGHT_UNIT)).toEqual([13, 4]);
  });

  it('indexes words of code blocks at half the weight of prose, and counts them in the length', () => {
    const data = buildSegmentData([searchDoc({ id: 'c', title: 'Queries', body: 'select what you need', code: 'SELECT id FROM posts; select 1' })]);
    const p = postings(data);
    // body 1 + code 2 × 0.5
    expect(p['select']).toEqual([[0, 2]]);
    expect(p['posts']).toEqual([[0, 0.5]]);
    // title 3 × 1 + body 4 + code 6 × 0.5
    expect([...data.docs.lengths].map((l) => l / WEIGHT_UNIT)).toEqual([10]);
  });

  it('indexes Hangul words under their stems, so a stem and its inflected forms share one term', () => {
    const data = buildSegmentData([searchDoc({ id: 'k', title: '블로그', body: '블로그를 만들고 블로그에서 서버를 돌린다' })]);
    const p = postings(data);
    expect(p['블로그']).toEqual([[0, 3 + 2]]);
    expect(p['서버']).toEqual([[0, 1]]);
    expect(p['블로그를']).toBeUndefined();
    expect(p['서버를']).toBeUndefined();
  });

  it('counts terms that are also names of object properties', () => {
    // The tokenizer reads `__proto__` as `proto`; the words are what every such map would trip on.
    const data = buildSegmentData([searchDoc({ id: 'p', title: 'constructor valueOf', body: 'toString constructor', code: 'hasOwnProperty' })]);
    expect(Object.entries(postings(data)).sort()).toEqual([
      ['constructor', [[0, 4]]],
      ['hasownproperty', [[0, 0.5]]],
      ['tostring', [[0, 1]]],
      ['valueof', [[0, 3]]],
    ]);
  });

  it('counts exactly what a lunr Builder with empty pipelines counts, for any posts (property)', () => {
    const words = fc.constantFrom('koa', 'server', '서버를', '블로그', '비가', 'constructor', '__proto__', 'sqlite에서', 'node.js', 'a', 'Ü', '12');
    const text = fc.array(words, { maxLength: 12 }).map((w) => w.join(' '));
    const doc = fc.record({ title: text, body: text, code: text, metaDescription: text, tags: fc.array(text, { maxLength: 3 }) });
    fc.assert(
      fc.property(fc.array(doc, { minLength: 1, maxLength: 6 }), (fields) => {
        const docs = fields.map((f, i) => searchDoc({ id: `d${i}`, ...f }));
        const data = buildSegmentData(docs);
        const reference = countTerms(docs.map(tokenized)).termFrequencies;
        const expected = Object.create(null) as Record<string, [number, number][]>;
        reference.forEach((tfs, ordinal) => {
          for (const [term, tf] of tfs) (expected[term] ??= []).push([ordinal, tf / WEIGHT_UNIT]);
        });
        expect(Object.entries(postings(data)).sort()).toEqual(Object.entries(expected).sort());
        const lengths = docs.map(tokenized).map((t) => INDEX_FIELDS.reduce((n, f) => n + f.weight * t[f.name].length, 0));
        expect([...data.docs.lengths]).toEqual(lengths);
      }),
      { numRuns: 200 },
    );
  });
});
