/**
 * The image thread (imageThread.ts): sharp and libvips load here, never on the server's main
 * thread. Tasks run as they arrive (libvips does the work on its own threads); how many encode
 * at once is the main thread's fair queue's business (imagePipeline.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { BadRequestError, UnsupportedMediaTypeError } from '../domain/errors.js';
import { encodeImage, inspectImage, type EncodedObject } from './imageCodec.js';
import type { ImageReply, ImageTask, ImageWorkerData } from './imageMessages.js';

const { setup } = workerData as ImageWorkerData;

/** Each body in a buffer of its own, so it moves to the main thread instead of being copied. */
function movable(objects: EncodedObject[]): { objects: EncodedObject[]; transfer: ArrayBuffer[] } {
  const own = objects.map((object) => ({ ...object, body: new Uint8Array(object.body) }));
  return { objects: own as unknown as EncodedObject[], transfer: own.map((object) => object.body.buffer as ArrayBuffer) };
}

parentPort?.on('message', async ({ id, task }: { id: number; task: ImageTask }) => {
  let reply: ImageReply;
  let transfer: ArrayBuffer[] = [];
  try {
    if (task.kind === 'inspect') reply = { id, result: await inspectImage(setup, task.request) };
    else {
      const encoded = movable(await encodeImage(setup, task.request));
      reply = { id, result: encoded.objects };
      transfer = encoded.transfer;
    }
  } catch (err) {
    if (err instanceof BadRequestError || err instanceof UnsupportedMediaTypeError) reply = { id, refused: { status: err.status, message: err.message } };
    else reply = { id, error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
  }
  parentPort?.postMessage(reply, transfer);
});
