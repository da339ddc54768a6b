/**
 * One chunk file of the static index rewritten: the dead shed from every list it held, the
 * additions appended. A pure function of plain data, so a delta merge hands each chunk to the
 * worker pool (heavyTasks.ts): at 100,000 posts a merge rewrites about 300 chunks, three seconds
 * of the event loop that the publishes arriving meanwhile waited behind (300–550 ms each instead
 * of 40–90).
 */
import { serialiseChunk } from './postingLists.js';
import { decodePostings, POSTING_STRIDE, type ChunkFile } from './staticFormat.js';

/** A chunk's rewrite as it crosses to a worker. */
export interface ChunkRewrite {
  /** The chunk as stored (JSON text), or null when there is none yet. */
  stored: string | null;
  /** Terms and their postings `[ordinal, tf, …]`, ordinals above any the chunk holds. */
  additions: [string, number[]][];
  /** Ordinals shed from the lists the chunk held, and from the additions. */
  dropExisting: number[];
  dropAdded: number[];
}

/** The rewrite in place: `file` (decoded) loses the dead and gains the additions. */
export function applyRewrite(
  file: Record<string, number[]>,
  additions: readonly [string, number[]][],
  drop: { existing: ReadonlySet<number>; added: ReadonlySet<number> },
): Record<string, number[]> {
  for (const term of Object.keys(file)) file[term] = withoutDead(file[term]!, drop.existing);
  // Ordinals only grow, so appending keeps every list sorted.
  for (const [term, list] of additions) file[term] = [...(file[term] ?? []), ...withoutDead(list, drop.added)];
  return file;
}

/** The rewritten chunk as it is stored. */
export function rewrittenChunk(request: ChunkRewrite): string {
  const file = decodeChunk(request.stored === null ? {} : (JSON.parse(request.stored) as ChunkFile));
  applyRewrite(file, request.additions, { existing: new Set(request.dropExisting), added: new Set(request.dropAdded) });
  return serialiseChunk(file);
}

export function decodeChunk(stored: ChunkFile): Record<string, number[]> {
  const file: Record<string, number[]> = {};
  for (const term of Object.keys(stored)) file[term] = decodePostings(stored[term]!);
  return file;
}

function withoutDead(list: number[], dead: ReadonlySet<number>): number[] {
  if (dead.size === 0) return list;
  const kept: number[] = [];
  for (let i = 0; i < list.length; i += POSTING_STRIDE) if (!dead.has(list[i]!)) kept.push(list[i]!, list[i + 1]!);
  return kept;
}
