/**
 * Worker thread of a full rebuild (parallelBuild.ts): indexes the runs of documents it is sent,
 * a piece at a time joined into one segment per run (the joins happen here, not on the event
 * loop), and hands the segment data back, transferring the typed arrays instead of copying them.
 */
import { parentPort } from 'node:worker_threads';
import { buildInPieces, segmentTransferList, type SegmentData } from './segmentData.js';
import type { SearchDocument } from './searchTypes.js';

/**
 * Part of a run: a run's documents come in several messages, the last one saying so, because
 * copying a thousand posts' text into one message held the sender's event loop over 100 ms.
 */
export interface BuildRequest {
  piece: number;
  docs: SearchDocument[];
  /** Documents indexed at a time within the run. */
  pieceDocs: number;
  /** Whether this message completes the run: it is indexed then. */
  last: boolean;
}

export type BuildReply = { piece: number; data: SegmentData } | { piece: number; error: string };

const port = parentPort;
if (port) {
  let received: SearchDocument[] = [];
  port.on('message', (request: BuildRequest) => {
    for (const doc of request.docs) received.push(doc);
    if (!request.last) return;
    const docs = received;
    received = [];
    let reply: BuildReply;
    try {
      reply = { piece: request.piece, data: buildInPieces(docs, request.pieceDocs) };
    } catch (err) {
      reply = { piece: request.piece, error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
    }
    port.postMessage(reply, 'data' in reply ? segmentTransferList(reply.data) : []);
  });
}
