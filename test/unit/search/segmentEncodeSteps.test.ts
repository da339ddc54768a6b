/**
 * Encoding a large segment on the event loop pauses often enough (steps.ts): every so many
 * postings, records and bytes copied, not only every thousand terms, which let one step of a
 * 50,000-post blog's segment run 150 ms.
 */
import { describe, expect, it } from 'vitest';
import { decodeRawSegment } from '../../../src/search/segmentCodec.js';
import type { SegmentData } from '../../../src/search/segmentData.js';
import { encodeV3, encodeV3Steps } from '../../../src/search/segmentV3Encode.js';

/** `terms` terms, each in every one of `docs` documents: few terms, many postings. */
function denseSegment(terms: number, docs: number): SegmentData {
  const ids = Array.from({ length: docs }, (_, i) => `p${i}`);
  const postingDocs = new Uint32Array(terms * docs);
  for (let t = 0; t < terms; t++) for (let d = 0; d < docs; d++) postingDocs[t * docs + d] = d;
  return {
    docs: {
      ids,
      slugs: ids.map((id) => `post-${id}`),
      titles: ids.map((id) => `Title ${id} 제목`),
      descriptions: ids.map(() => 'A description'),
      tags: ids.map(() => ['tag']),
      createdAt: ids.map(() => '2026-01-01T00:00:00.000Z'),
      publishedAt: ids.map((_, i) => new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString()),
      urls: ids.map((id) => `/post-${id}/`),
      lengths: new Uint32Array(docs).fill(4),
    },
    terms: Array.from({ length: terms }, (_, t) => `t${String(t).padStart(4, '0')}`),
    offsets: Uint32Array.from({ length: terms + 1 }, (_, t) => t * docs),
    postingDocs,
    postingTfs: new Uint16Array(terms * docs).fill(1),
  };
}

describe('encoding a segment in steps', () => {
  it('pauses at least every 262,144 postings, even within fewer than a thousand terms, and writes the same bytes', () => {
    const data = denseSegment(300, 2_000);
    const steps = encodeV3Steps(data);
    let pauses = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) pauses++;
    // 600,000 postings: 2 pauses for them, then one each after the postings, the terms, the
    // records (2,000: one within), the published times and the parts; pausing only every 1,024
    // terms gave 5 in all.
    expect(pauses).toBeGreaterThanOrEqual(8);
    const body = step.value;
    expect(body.equals(encodeV3(data))).toBe(true);
    const decoded = decodeRawSegment('seg', body);
    expect(decoded.terms).toEqual(data.terms);
    expect(
      Buffer.from(decoded.postingDocs.buffer, decoded.postingDocs.byteOffset, decoded.postingDocs.byteLength).equals(Buffer.from(data.postingDocs.buffer)),
    ).toBe(true);
    expect(decoded.docs.titles).toEqual(data.docs.titles);
    expect(encodeV3(decoded).equals(body)).toBe(true);
  });
});
