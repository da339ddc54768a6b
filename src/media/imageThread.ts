/**
 * Where the image codec (imageCodec.ts) runs: on the image thread (imageWorker.ts) in a built
 * server, so sharp and libvips never load on the main thread (loading them held the event loop
 * for about 60 ms, and they stayed mapped for the life of the process, 11-18 MB of a resting
 * server's memory); in place where no compiled worker exists (running from sources). The thread
 * starts with the first upload and stops when a resting server retires its idle threads.
 */
import { Worker } from 'node:worker_threads';
import { BadRequestError, UnsupportedMediaTypeError } from '../domain/errors.js';
import { encodeImage, inspectImage, type CodecSetup, type EncodedObject } from './imageCodec.js';
import type { ImageReply, ImageTask, ImageTaskResult, ImageWorkerData } from './imageMessages.js';

export interface ImageCodecRunner {
  /** Whether a thread of its own is running. */
  readonly running: boolean;
  run<T extends ImageTask>(task: T): Promise<ImageTaskResult<T>>;
  /** Stops the thread if no task is in it (a server at rest); the next task starts it again. */
  retireIdle(): boolean;
  close(): Promise<void>;
}

/** The codec on the calling thread. */
export class InPlaceCodec implements ImageCodecRunner {
  readonly running = false;

  constructor(private readonly setup: CodecSetup) {}

  async run<T extends ImageTask>(task: T): Promise<ImageTaskResult<T>> {
    const result = task.kind === 'inspect' ? await inspectImage(this.setup, task.request) : await encodeImage(this.setup, task.request);
    return result as ImageTaskResult<T>;
  }

  retireIdle(): boolean {
    return true;
  }

  async close(): Promise<void> {}
}

/** A body arrives as a plain Uint8Array (a Buffer does not keep its class across threads). */
const asBufferBody = (object: EncodedObject): EncodedObject => ({
  ...object,
  body: Buffer.from(object.body.buffer, object.body.byteOffset, object.body.byteLength),
});

interface InFlight {
  resolve: (result: unknown) => void;
  reject: (error: Error) => void;
}

export class ImageThread implements ImageCodecRunner {
  private worker: Worker | null = null;
  private readonly inFlight = new Map<number, InFlight>();
  private nextId = 1;

  constructor(
    private readonly script: URL,
    private readonly setup: CodecSetup,
  ) {}

  run<T extends ImageTask>(task: T): Promise<ImageTaskResult<T>> {
    // The bytes go in a buffer of their own, moved rather than copied twice.
    const bytes = new Uint8Array(task.request.bytes);
    const moved = { ...task, request: { ...task.request, bytes } } as ImageTask;
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.inFlight.set(id, { resolve: resolve as (result: unknown) => void, reject });
      const worker = this.started();
      // Referenced while a task is in it: an upload keeps the process alive until answered.
      worker.ref();
      worker.postMessage({ id, task: moved }, [bytes.buffer as ArrayBuffer]);
    });
  }

  get running(): boolean {
    return this.worker !== null;
  }

  retireIdle(): boolean {
    if (this.inFlight.size > 0) return false;
    const worker = this.worker;
    this.worker = null;
    void worker?.terminate().catch(() => undefined);
    return true;
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    this.fail(new Error('the image thread was closed'));
    await worker?.terminate();
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const data: ImageWorkerData = { setup: this.setup };
    const worker = new Worker(this.script, { workerData: data });
    worker.unref();
    worker.on('message', (reply: ImageReply) => {
      const waiting = this.inFlight.get(reply.id);
      this.inFlight.delete(reply.id);
      if (this.inFlight.size === 0) worker.unref();
      if (!waiting) return;
      if ('result' in reply) waiting.resolve(Array.isArray(reply.result) ? reply.result.map(asBufferBody) : reply.result);
      else if ('refused' in reply) {
        const { status, message } = reply.refused;
        waiting.reject(status === 415 ? new UnsupportedMediaTypeError(message) : new BadRequestError(message));
      } else waiting.reject(new Error(`image task failed: ${reply.error}`));
    });
    const lost = (error: Error): void => {
      if (this.worker !== worker) return;
      this.worker = null;
      this.fail(error);
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`the image thread exited with code ${code}`)));
    this.worker = worker;
    return worker;
  }

  private fail(error: Error): void {
    for (const waiting of this.inFlight.values()) waiting.reject(error);
    this.inFlight.clear();
  }
}
