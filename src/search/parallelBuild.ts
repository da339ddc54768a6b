/**
 * Full rebuilds index runs of about a thousand posts on worker threads, so both cores of a small
 * VM work, then join the runs into segments by concatenation (segmentData.ts), in slices that
 * leave the event loop free for requests between them.
 *
 * The worker is the compiled `buildWorker.js` next to this module. Under vitest this module is
 * the `.ts` source and Node 20 cannot start a `.ts` worker, so pieces are then built in-process:
 * same code, same output, one core. `npm run build` output (dist/) always uses workers.
 */
import { availableParallelism } from 'node:os';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { compiledScript } from '../workers/compiledScript.js';
import type { BuildReply, BuildRequest } from './buildWorker.js';
import { buildInPieces, type SegmentData } from './segmentData.js';
import { RunJoiner } from './runJoiner.js';
import type { SearchDocument } from './searchTypes.js';

export interface ParallelBuildOptions {
  /** Worker threads to use; 0 builds in-process. Default: one per core, at most 4. */
  workers?: number;
  /** Posts per piece handed to a worker. */
  pieceDocs?: number;
  /** Each worker's old generation cap, in MB (tests make it small). Default WORKER_OLD_GENERATION_MB. */
  workerOldGenerationMb?: number;
}

/**
 * Small pieces keep the workers out of the old generation: a piece's term maps die young.
 */
const DEFAULT_PIECE_DOCS = 64;
/**
 * Pieces per run a worker joins itself. The join on the event loop then takes tens of parts
 * instead of hundreds: its cost per term grows with the number of parts.
 */
const PIECES_PER_RUN = 16;
/**
 * Each worker's young generation. Its semi-spaces are committed for the worker's life and count
 * in the process's RSS: 64 MB held about 80 MB more at a reindex's peak than 16, for builds about
 * a tenth faster (10,000 posts).
 */
const WORKER_YOUNG_GENERATION_MB = 16;
/**
 * Left alone, V8 lets a worker's old generation grow with the garbage of every run it indexes
 * (hundreds of MB per worker on a big blog, all of it in the process's RSS) while a run keeps
 * a few MB alive. A run that does need more (a thousand posts near the size limit) makes the
 * worker run out of memory: that run and the rest of its worker's share are then indexed here.
 */
export const WORKER_OLD_GENERATION_MB = 128;

/** The compiled worker file, or null when running from TypeScript sources. */
export function workerScript(): URL | null {
  if (fileURLToPath(import.meta.url).endsWith('.ts')) return null;
  return compiledScript('search/buildWorker');
}

export function defaultWorkerCount(): number {
  return Math.min(4, Math.max(1, availableParallelism()));
}

/**
 * A rebuild's documents, read a run at a time as a worker frees up, so that the text of every
 * post of a large blog is never in memory at once.
 */
export interface DocumentRuns {
  /** Documents per group (one segment each), in order. */
  groupSizes: readonly number[];
  /**
   * The documents at positions [from, to) of all groups taken together, in order. Fewer may come
   * back (a post that left the blog meanwhile): its segment is then that much smaller.
   */
  read(from: number, to: number): Promise<SearchDocument[]>;
}

/**
 * Indexes `groups` of documents; returns one SegmentData per group, in order. Each group is cut
 * into pieces so the work spreads evenly even when one group is much larger than the others.
 */
export function buildSegments(groups: readonly (readonly SearchDocument[])[], options: ParallelBuildOptions = {}): Promise<SegmentData[]> {
  const all = groups.flat();
  return buildSegmentsFrom({ groupSizes: groups.map((docs) => docs.length), read: async (from, to) => all.slice(from, to) }, options);
}

interface Run {
  group: number;
  from: number;
  to: number;
}

/** buildSegments over documents read a run at a time (DocumentRuns). */
export async function buildSegmentsFrom(source: DocumentRuns, options: ParallelBuildOptions = {}): Promise<SegmentData[]> {
  const pieceDocs = options.pieceDocs ?? DEFAULT_PIECE_DOCS;
  const runDocs = pieceDocs * PIECES_PER_RUN;
  const runs: Run[] = [];
  let start = 0;
  source.groupSizes.forEach((size, group) => {
    for (let from = start; from < start + size; from += runDocs) runs.push({ group, from, to: Math.min(from + runDocs, start + size) });
    start += size;
  });
  const read = (run: Run): Promise<SearchDocument[]> => source.read(run.from, run.to);
  const script = workerScript();
  const workers = Math.min(options.workers ?? defaultWorkerCount(), runs.length);
  // Runs are joined into their groups as they come, not held to the end (runJoiner.ts).
  const joiner = new RunJoiner(
    runs.map((run) => run.group),
    source.groupSizes.length,
  );
  if (script && workers > 1)
    await buildOnWorkers(script, runs, read, pieceDocs, workers, options.workerOldGenerationMb ?? WORKER_OLD_GENERATION_MB, (piece, data) =>
      joiner.add(piece, data),
    );
  else for (const [i, run] of runs.entries()) joiner.add(i, buildInPieces(await read(run), pieceDocs));
  return joiner.finish();
}

/** Each worker is sent the next run as soon as it is free; a run's documents are read just before. */
async function buildOnWorkers(
  script: URL,
  runs: readonly Run[],
  read: (run: Run) => Promise<SearchDocument[]>,
  pieceDocs: number,
  count: number,
  oldGenerationMb: number,
  onBuilt: (piece: number, data: SegmentData) => void,
): Promise<void> {
  let next = 0;
  const limits = { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB, maxOldGenerationSizeMb: oldGenerationMb };
  const pool = Array.from({ length: count }, () => new Worker(script, { resourceLimits: limits }));
  // The rest of the runs, indexed on this thread: what a worker that ran out of memory leaves.
  const inProcess = async (): Promise<void> => {
    while (next < runs.length) {
      const piece = next++;
      onBuilt(piece, buildInPieces(await read(runs[piece]!), pieceDocs));
    }
  };
  try {
    await Promise.all(
      pool.map(
        (worker) =>
          new Promise<void>((resolve, reject) => {
            let done = false;
            let outOfMemory = false;
            // The run the worker holds, kept to index it here if the worker runs out of memory.
            let held: { piece: number; docs: SearchDocument[] } | null = null;
            const send = async (): Promise<void> => {
              if (next >= runs.length) {
                done = true;
                resolve();
                return;
              }
              const piece = next++;
              const docs = await read(runs[piece]!);
              held = { piece, docs };
              // A piece's documents per message, the loop let in between: copying a whole run's
              // text into one message held it over 100 ms at 50,000 posts.
              for (let from = 0; ; from += pieceDocs) {
                const last = from + pieceDocs >= docs.length;
                const part: BuildRequest = { piece, docs: docs.slice(from, from + pieceDocs), pieceDocs, last };
                worker.postMessage(part);
                if (last) return;
                await yieldToLoop();
              }
            };
            const sendNext = (): void => {
              send().catch(reject);
            };
            worker.on('message', (reply: BuildReply) => {
              if ('error' in reply) {
                reject(new Error(`search index worker failed on piece ${reply.piece}: ${reply.error}`));
                return;
              }
              onBuilt(reply.piece, reply.data);
              held = null;
              sendNext();
            });
            worker.on('error', (err: Error & { code?: string }) => {
              if (err.code !== 'ERR_WORKER_OUT_OF_MEMORY' || done) {
                reject(err);
                return;
              }
              done = true;
              outOfMemory = true;
              const run = held;
              held = null;
              if (run) onBuilt(run.piece, buildInPieces(run.docs, pieceDocs));
              inProcess().then(resolve, reject);
            });
            worker.on('exit', (code) => {
              if (!outOfMemory && (!done || code !== 0)) reject(new Error(`search index worker exited early (code ${code})`));
            });
            sendNext();
          }),
      ),
    );
  } finally {
    await Promise.all(pool.map((w) => w.terminate()));
  }
}
