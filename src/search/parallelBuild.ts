/**
 * Full rebuilds index pieces of a few hundred posts on worker threads, so both cores of a small
 * VM work, then join the pieces into segments by concatenation (segmentData.ts).
 *
 * The worker is the compiled `buildWorker.js` next to this module. Under vitest this module is
 * the `.ts` source and Node 20 cannot start a `.ts` worker, so pieces are then built in-process:
 * same code, same output, one core. `npm run build` output (dist/) always uses workers.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { BuildReply, BuildRequest } from './buildWorker.js';
import { buildSegmentData, concatSegments, type SegmentData } from './segmentData.js';
import type { SearchDocument } from './searchTypes.js';

export interface ParallelBuildOptions {
  /** Worker threads to use; 0 builds in-process. Default: one per core, at most 4. */
  workers?: number;
  /** Posts per piece handed to a worker. */
  pieceDocs?: number;
}

/**
 * Small pieces and a larger young generation keep the workers out of the garbage collector:
 * a piece's term maps die young. (Chosen when lunr's Builder did the counting and its
 * dictionaries made long-lived pieces expensive to scavenge; still the fastest measured.)
 */
const DEFAULT_PIECE_DOCS = 64;
const WORKER_YOUNG_GENERATION_MB = 64;

/** The compiled worker file, or null when running from TypeScript sources. */
export function workerScript(): URL | null {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith('.ts')) return null;
  const script = new URL('./buildWorker.js', import.meta.url);
  return existsSync(fileURLToPath(script)) ? script : null;
}

export function defaultWorkerCount(): number {
  return Math.min(4, Math.max(1, availableParallelism()));
}

/**
 * Indexes `groups` of documents; returns one SegmentData per group, in order. Each group is cut
 * into pieces so the work spreads evenly even when one group is much larger than the others.
 */
export async function buildSegments(groups: readonly (readonly SearchDocument[])[], options: ParallelBuildOptions = {}): Promise<SegmentData[]> {
  const pieceDocs = options.pieceDocs ?? DEFAULT_PIECE_DOCS;
  const pieces: { group: number; docs: SearchDocument[] }[] = [];
  groups.forEach((docs, group) => {
    for (let i = 0; i < docs.length; i += pieceDocs) pieces.push({ group, docs: docs.slice(i, i + pieceDocs) });
  });
  const script = workerScript();
  const workers = Math.min(options.workers ?? defaultWorkerCount(), pieces.length);
  const built = script && workers > 1 ? await buildOnWorkers(script, pieces.map((p) => p.docs), workers) : pieces.map((p) => buildSegmentData(p.docs));

  return groups.map((docs, group) => {
    const parts = built.filter((_, i) => pieces[i]!.group === group).map((data) => ({ data, drop: null }));
    if (parts.length === 0) return buildSegmentData([]);
    return parts.length === 1 ? parts[0]!.data : concatSegments(parts).data;
  });
}

async function buildOnWorkers(script: URL, pieces: readonly SearchDocument[][], count: number): Promise<SegmentData[]> {
  const results: SegmentData[] = new Array<SegmentData>(pieces.length);
  let next = 0;
  const pool = Array.from({ length: count }, () => new Worker(script, { resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB } }));
  try {
    await Promise.all(
      pool.map(
        (worker) =>
          new Promise<void>((resolve, reject) => {
            const send = (): void => {
              if (next >= pieces.length) {
                resolve();
                return;
              }
              const request: BuildRequest = { piece: next, docs: pieces[next]! };
              next++;
              worker.postMessage(request);
            };
            worker.on('message', (reply: BuildReply) => {
              if ('error' in reply) {
                reject(new Error(`search index worker failed on piece ${reply.piece}: ${reply.error}`));
                return;
              }
              results[reply.piece] = reply.data;
              send();
            });
            worker.on('error', reject);
            worker.on('exit', (code) => {
              if (next < pieces.length || code !== 0) reject(new Error(`search index worker exited early (code ${code})`));
            });
            send();
          }),
      ),
    );
  } finally {
    await Promise.all(pool.map((w) => w.terminate()));
  }
  return results;
}
