/** What the main thread and the image thread (imageWorker.ts) say to each other. */
import type { CodecSetup, EncodedObject, EncodeRequest, InspectRequest, Inspected } from './imageCodec.js';

export type ImageTask = { kind: 'inspect'; request: InspectRequest } | { kind: 'encode'; request: EncodeRequest };

export type ImageTaskResult<T extends ImageTask> = T extends { kind: 'inspect' } ? Inspected : EncodedObject[];

export interface ImageWorkerData {
  setup: CodecSetup;
}

/**
 * An upload refused (400 or 415) crosses as its status and message, since errors do not cross
 * threads as objects; any other failure as its text.
 */
export type ImageReply =
  | { id: number; result: Inspected | EncodedObject[] }
  | { id: number; refused: { status: 400 | 415; message: string } }
  | { id: number; error: string };
