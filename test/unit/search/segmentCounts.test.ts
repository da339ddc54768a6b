import { describe, expect, it } from 'vitest';
import { countTerms } from '../../../src/search/lunrSetup.js';
import { buildSegmentData } from '../../../src/search/segmentData.js';
import { searchDoc } from './docFactory.js';

/** term → [ordinal, weighted tf][] read back from a built segment. */
function postings(data: ReturnType<typeof buildSegmentData>): Record<string, [number, number][]> {
  const out: Record<string, [number, number][]> = {};
  data.terms.forEach((term, t) => {
    const list: [number, number][] = [];
    for (let j = data.offsets[t]!; j < data.offsets[t + 1]!; j++) list.push([data.postingDocs[j]!, data.postingTfs[j]!]);
    out[term] = list;
  });
  return out;
}

describe('term counts of a segment (lunr Builder fed finished terms)', () => {
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
    expect([...data.docs.lengths]).toEqual([13, 4]);
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
    const { termFrequencies } = countTerms([{ title: ['constructor', '__proto__'], tags: [], description: [], body: ['tostring', 'constructor'] }]);
    expect([...termFrequencies[0]!].sort()).toEqual([
      ['__proto__', 3],
      ['constructor', 4],
      ['tostring', 1],
    ]);
  });
});
