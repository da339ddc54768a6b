/**
 * The best `k` matches of a query, kept while the matches stream past: a bounded heap whose
 * root is the worst kept match. Memory follows `k` (the requested page's end), never the
 * number of matches, and a match that cannot enter the page costs one comparison.
 *
 * Order: score, then newest publishedAt, then slug, then id (docs/search.md, "Scoring").
 */
import type { SegmentView } from './loadedSegment.js';

export class TopHits {
  /** Every match offered, kept or not: the `total` of the answer. */
  total = 0;
  private readonly scores: number[] = [];
  private readonly views: number[] = [];
  private readonly ordinals: number[] = [];
  /** Heap of slots into the three arrays above; heap[0] is the worst kept match. */
  private readonly heap: number[] = [];

  constructor(
    private readonly segments: readonly SegmentView[],
    private readonly k: number,
  ) {}

  offer(score: number, view: number, ordinal: number): void {
    this.total++;
    if (this.k === 0) return;
    const heap = this.heap;
    if (heap.length < this.k) {
      const slot = this.scores.length;
      this.scores.push(score);
      this.views.push(view);
      this.ordinals.push(ordinal);
      heap.push(slot);
      this.siftUp(heap.length - 1);
      return;
    }
    const worst = heap[0]!;
    if (!this.beats(score, view, ordinal, worst)) return;
    // Reuse the evicted match's slot.
    this.scores[worst] = score;
    this.views[worst] = view;
    this.ordinals[worst] = ordinal;
    this.siftDown(0);
  }

  /** The kept matches, best first, as (view, ordinal) pairs. */
  best(): { view: number; ordinal: number }[] {
    const slots = [...this.heap].sort((a, b) => (this.better(a, b) ? -1 : this.better(b, a) ? 1 : 0));
    return slots.map((slot) => ({ view: this.views[slot]!, ordinal: this.ordinals[slot]! }));
  }

  private better(a: number, b: number): boolean {
    return this.beats(this.scores[a]!, this.views[a]!, this.ordinals[a]!, b);
  }

  /** Whether the match (score, view, ordinal) ranks before the kept match in `slot`. */
  private beats(score: number, view: number, ordinal: number, slot: number): boolean {
    const other = this.scores[slot]!;
    if (score !== other) return score > other;
    const a = this.segments[view]!.segment;
    const b = this.segments[this.views[slot]!]!.segment;
    const ob = this.ordinals[slot]!;
    const pa = a.publishedMs[ordinal]!;
    const pb = b.publishedMs[ob]!;
    if (pa !== pb) return pa > pb;
    const slugA = a.slugOf(ordinal);
    const slugB = b.slugOf(ob);
    if (slugA !== slugB) return slugA < slugB;
    return a.idOf(ordinal) < b.idOf(ob);
  }

  private siftUp(i: number): void {
    const heap = this.heap;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      // The root is the worst: a child better than its parent is in place.
      if (!this.better(heap[parent]!, heap[i]!)) return;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  private siftDown(i: number): void {
    const heap = this.heap;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let worst = i;
      if (l < heap.length && this.better(heap[worst]!, heap[l]!)) worst = l;
      if (r < heap.length && this.better(heap[worst]!, heap[r]!)) worst = r;
      if (worst === i) return;
      [heap[i], heap[worst]] = [heap[worst]!, heap[i]!];
      i = worst;
    }
  }
}
