/**
 * Worker thread of a full rebuild (parallelBuild.ts): indexes the runs of documents it is sent,
 * a piece at a time joined into one segment per run (the joins happen here, not on the event
 * loop), and hands the segment data back, transferring the typed arrays instead of copying them.
 */
import { parentPort } from 'node:worker_threads';
import { buildInPieces, segmentTransferList, type SegmentData } from './segmentData.js';
import type { SearchDocument } from './searchTypes.js';

export interface BuildRequest {
  piece: number;
  docs: SearchDocument[];
  /** Documents indexed at a time within the run. */
  pieceDocs: number;
}

export type BuildReply = { piece: number; data: SegmentData } | { piece: number; error: string };

const port = parentPort;
if (port) {
  port.on('message', (request: BuildRequest) => {
    let reply: BuildReply;
    try {
      reply = { piece: request.piece, data: buildInPieces(request.docs, request.pieceDocs) };
    } catch (err) {
      reply = { piece: request.piece, error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
    }
    port.postMessage(reply, 'data' in reply ? segmentTransferList(reply.data) : []);
  });
}
