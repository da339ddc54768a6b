import { describe, expect, it } from 'vitest';
import { emptyManifest, type Manifest, type SegmentEntry } from '../../../src/search/manifest.js';
import { DEFAULT_MERGE_POLICY, planMerge, rebuildLayout, tierOf } from '../../../src/search/mergePolicy.js';
import { buildSegments, workerScript } from '../../../src/search/parallelBuild.js';
import { buildSegmentData } from '../../../src/search/segmentData.js';
import { searchDoc } from './docFactory.js';

const policy = { headMaxDocs: 10, mergeFactor: 4, maxDeletedRatio: 0.25 };

function manifestOf(sizes: number[], options: { head?: number; deleted?: Record<number, number> } = {}): Manifest {
  const manifest = emptyManifest();
  manifest.segments = sizes.map(
    (docs, i): SegmentEntry => ({ id: `${i}-a`, docs, deleted: Array.from({ length: options.deleted?.[i] ?? 0 }, (_, d) => d), bytes: 1, rawBytes: 1 }),
  );
  manifest.head = options.head === undefined ? null : `${options.head}-a`;
  return manifest;
}

describe('tiered merge policy', () => {
  it('puts segments in tiers of headMaxDocs × F^k', () => {
    expect([1, 10, 39, 40, 159, 160, 640].map((n) => tierOf(n, policy))).toEqual([0, 0, 0, 1, 1, 2, 3]);
  });

  it('merges F segments of the lowest full tier, smallest first, never the head', () => {
    expect(planMerge(manifestOf([10, 10, 10]), policy)).toBeNull();
    expect(planMerge(manifestOf([10, 9, 10, 8, 3], { head: 4 }), policy)).toEqual(['3-a', '1-a', '0-a', '2-a']);
    expect(planMerge(manifestOf([40, 45, 50, 41, 10]), policy)).toEqual(['0-a', '3-a', '1-a', '2-a']);
  });

  it('rewrites a segment alone once too many of its documents are deleted', () => {
    expect(planMerge(manifestOf([40, 40], { deleted: { 1: 11 } }), policy)).toEqual(['1-a']);
    expect(planMerge(manifestOf([40, 40], { deleted: { 1: 10 } }), policy)).toBeNull();
  });

  it('lays a rebuild out in the shape the policy keeps, so no merge follows it', () => {
    const layout = rebuildLayout(10_000, DEFAULT_MERGE_POLICY);
    expect(layout).toEqual({ sealed: [8192, 512, 512, 512, 128, 128], head: 16 });
    expect(layout.sealed.reduce((a, b) => a + b, 0) + layout.head).toBe(10_000);
    expect(planMerge(manifestOf([...layout.sealed, layout.head], { head: layout.sealed.length }), DEFAULT_MERGE_POLICY)).toBeNull();
    expect(rebuildLayout(5, DEFAULT_MERGE_POLICY)).toEqual({ sealed: [], head: 5 });
  });
});

describe('parallel build', () => {
  it('builds in-process under vitest, where only the .ts worker source exists', () => {
    expect(workerScript()).toBeNull();
  });

  it('cuts groups into pieces and joins them back to what one build gives', async () => {
    const docs = Array.from({ length: 23 }, (_, i) =>
      searchDoc({ id: `p${i}`, title: `title ${i % 3}`, body: `body ${i} 서버를 ${i % 5}`, publishedAt: '2024-01-01T00:00:00.000Z' }),
    );
    const [first, second] = await buildSegments([docs.slice(0, 17), docs.slice(17)], { pieceDocs: 4 });
    expect(first).toEqual(buildSegmentData(docs.slice(0, 17)));
    expect(second).toEqual(buildSegmentData(docs.slice(17)));
  });
});
