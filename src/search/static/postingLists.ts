/**
 * The static index's posting lists as the layout writes them (staticIndexWriter.ts): from
 * segments with global ordinals, made lazily per chunk, and serialised per chunk file.
 */
import { WEIGHT_UNIT } from '../lunrSetup.js';
import type { SegmentData } from '../segmentData.js';
import { TimeSlice } from '../../lib/timeSlice.js';
import { encodePostings, type ChunkFile } from './staticFormat.js';

/** How long mapping terms runs before the event loop gets a turn. */
const SLICE_MS = 10;

/** A term's postings as `[ordinal, tf, …]`, or a function that makes them when its chunk is written. */
export type PostingList = number[] | (() => number[]);

/** Appends term t's postings of a segment, its local ordinal i given the global ordinal ordinalOf(i). */
function appendPostings(list: number[], data: SegmentData, t: number, ordinalOf: (local: number) => number): void {
  // The tf in occurrences (a code word is 0.5), as ranking.ts divides it.
  for (let p = data.offsets[t]!; p < data.offsets[t + 1]!; p++) list.push(ordinalOf(data.postingDocs[p]!), data.postingTfs[p]! / WEIGHT_UNIT);
}

/** Terms of a segment with global ordinals: local ordinal i becomes ordinals[i]. */
export function* postingsOf(data: SegmentData, ordinals: readonly number[]): Generator<[string, number[]]> {
  const ordinalOf = (local: number): number => ordinals[local]!;
  for (let t = 0; t < data.terms.length; t++) {
    const list: number[] = [];
    appendPostings(list, data, t, ordinalOf);
    yield [data.terms[t]!, list];
  }
}

/** How many terms are looked at between checks of the time slice. */
const TERMS_PER_CHECK = 1024;

/**
 * The terms of consecutive segments (ordinals running on from one to the next) with functions
 * that make each term's postings when its chunk is written. The segments are not joined into
 * one first, and no list exists before its chunk, so a large blog's layout never holds a joined
 * copy of every posting, nor every list as an array, beside the segments themselves.
 */
export async function lazyPostingsOf(segments: readonly SegmentData[]): Promise<{ terms: Iterable<[string, () => number[]]>; postings: number }> {
  const bases: number[] = [];
  let base = 0;
  let postings = 0;
  for (const data of segments) {
    bases.push(base);
    base += data.docs.ids.length;
    postings += data.postingDocs.length;
  }
  // term → [segment, term index, segment, term index, …], segments in order.
  const where = new Map<string, number[]>();
  const slice = new TimeSlice(SLICE_MS);
  for (const [s, data] of segments.entries()) {
    for (let t = 0; t < data.terms.length; t++) {
      const term = data.terms[t]!;
      const refs = where.get(term);
      if (refs) refs.push(s, t);
      else where.set(term, [s, t]);
      if (t % TERMS_PER_CHECK === 0 && slice.over) await slice.next();
    }
  }
  function* terms(): Generator<[string, () => number[]]> {
    for (const [term, refs] of where) {
      yield [
        term,
        () => {
          const list: number[] = [];
          for (let k = 0; k < refs.length; k += 2) {
            const base = bases[refs[k]!]!;
            appendPostings(list, segments[refs[k]!]!, refs[k + 1]!, (local) => base + local);
          }
          return list;
        },
      ];
    }
  }
  return { terms: terms(), postings };
}

/** Absolute postings per term → the stored file, terms sorted so equal content gives equal bytes. */
export function serialiseChunk(file: Record<string, PostingList>): string {
  const out: ChunkFile = {};
  for (const term of Object.keys(file).sort()) {
    const entry = file[term]!;
    const list = typeof entry === 'function' ? entry() : entry;
    if (list.length > 0) out[term] = encodePostings(list);
  }
  return JSON.stringify(out);
}
