import { describe, expect, it } from 'vitest';
import { RunJoiner } from '../../../src/search/runJoiner.js';
import { buildSegmentData } from '../../../src/search/segmentData.js';
import { searchDoc } from './docFactory.js';

describe('RunJoiner', () => {
  it('joins runs added in any order into one segment per group, equal to one build of its documents', async () => {
    const docs = Array.from({ length: 110 }, (_, i) =>
      searchDoc({ id: `j${i}`, title: `title ${i % 7}`, body: `word${i % 11} 검색${i % 3} shared${i}`, publishedAt: '2024-01-01T00:00:00.000Z' }),
    );
    // Groups of 70, 0 (empty) and 40 posts, in runs of 10: run i holds posts [10i, 10i + 10).
    const runGroups = [...Array.from({ length: 7 }, () => 0), ...Array.from({ length: 4 }, () => 2)];
    const joiner = new RunJoiner(runGroups, 3, 3);
    const order = [3, 0, 10, 1, 2, 6, 5, 4, 9, 8, 7];
    for (const run of order) joiner.add(run, buildSegmentData(docs.slice(run * 10, run * 10 + 10)));
    const segments = await joiner.finish();
    expect(segments).toEqual([buildSegmentData(docs.slice(0, 70)), buildSegmentData([]), buildSegmentData(docs.slice(70))]);
  });
});
