/**
 * The worker side of FairWorkerPool: answers each task message with the handler's result, or
 * with the error's text (errors do not cross threads as objects). `transfer` names the buffers
 * of a result that may be moved instead of copied.
 */
import { parentPort } from 'node:worker_threads';

export interface TaskRequest<Req> {
  id: number;
  request: Req;
}

export type TaskReply<Res> = { id: number; result: Res } | { id: number; error: string };

/** Sent once the worker's modules are loaded: a task's time limit counts from here, not from the thread's start. */
export const WORKER_READY = 'folio-worker-ready';

/** `handler` may answer with a promise (a card's drawing): the pool gives a worker one task at a time. */
export function serveTasks<Req, Res>(handler: (request: Req) => Res | Promise<Res>, transfer: (result: Res) => ArrayBuffer[] = () => []): void {
  const port = parentPort;
  if (!port) throw new Error('serveTasks runs only inside a worker thread');
  port.on('message', async (message: TaskRequest<Req>) => {
    let reply: TaskReply<Res>;
    try {
      const answer = handler(message.request);
      reply = { id: message.id, result: answer instanceof Promise ? await answer : answer };
    } catch (err) {
      reply = { id: message.id, error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
    }
    port.postMessage(reply, 'result' in reply ? transfer(reply.result) : []);
  });
  port.postMessage(WORKER_READY);
}
