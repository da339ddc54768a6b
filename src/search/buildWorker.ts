/**
 * Worker thread of a full rebuild (parallelBuild.ts): indexes the pieces it is sent and hands
 * the segment data back, transferring the typed arrays instead of copying them.
 */
import { parentPort } from 'node:worker_threads';
import { buildSegmentData, segmentTransferList, type SegmentData } from './segmentData.js';
import type { SearchDocument } from './searchTypes.js';

export interface BuildRequest {
  piece: number;
  docs: SearchDocument[];
}

export type BuildReply = { piece: number; data: SegmentData } | { piece: number; error: string };

const port = parentPort;
if (port) {
  port.on('message', (request: BuildRequest) => {
    let reply: BuildReply;
    try {
      reply = { piece: request.piece, data: buildSegmentData(request.docs) };
    } catch (err) {
      reply = { piece: request.piece, error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
    }
    port.postMessage(reply, 'data' in reply ? segmentTransferList(reply.data) : []);
  });
}
