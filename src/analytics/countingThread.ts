/**
 * Counting in a worker thread (docs/analytics.md "Cost"). At a busy blog beacons outnumber every
 * other request; their counting (user-agent rules, the visitor hash, referrer parsing, a visitor
 * set of up to a million entries) on the API's event loop and heap measurably lengthened API
 * answers. Here the main thread only queues loads and posts them every SEND_MS (or every
 * SEND_AT loads) in one message; the flush asks the thread for its counts.
 *
 * If the thread dies, what it held is lost (logged) and the next load starts another: counts are
 * best-effort by design, a crash of the process loses the same few seconds.
 */
import { Worker } from 'node:worker_threads';
import type { Logger } from '../lib/logger.js';
import type { Counting } from './counting.js';
import type { CountingReply, CountingRequest } from './countingMessages.js';
import type { ViewBatch } from './viewCounter.js';
import type { CountSizes, ViewLoad } from './viewTally.js';

const SEND_MS = 50;
const SEND_AT = 256;

interface Waiting {
  resolve: (reply: CountingReply) => void;
  reject: (error: Error) => void;
}

export class CountingThread implements Counting {
  private worker: Worker | null = null;
  private queued: ViewLoad[] = [];
  private timer: NodeJS.Timeout | null = null;
  private nextId = 1;
  /** Batches of loads posted to the thread so far. */
  private batchesSent = 0;
  private readonly waiting = new Map<number, Waiting>();

  constructor(
    private readonly script: URL,
    private readonly logger: Logger,
  ) {}

  add(load: ViewLoad): void {
    this.queued.push(load);
    if (this.queued.length >= SEND_AT) this.send();
    else this.timer ??= setTimeout(() => this.send(), SEND_MS).unref();
  }

  prestart(): void {
    this.started();
  }

  async drain(): Promise<ViewBatch> {
    this.send();
    if (!this.worker) return { days: [], referrers: [] };
    const reply = await this.ask({ type: 'drain', id: this.nextId++ });
    return reply.type === 'drained' ? reply.batch : { days: [], referrers: [] };
  }

  restore(batch: ViewBatch): void {
    this.post({ type: 'restore', batch });
  }

  async sizes(): Promise<CountSizes> {
    this.send();
    if (!this.worker) return { rows: 0, referrers: 0, visitors: 0 };
    const reply = await this.ask({ type: 'sizes', id: this.nextId++ });
    return reply.type === 'sizes' ? reply.sizes : { rows: 0, referrers: 0, visitors: 0 };
  }

  async retireIfEmpty(): Promise<boolean> {
    this.send();
    const worker = this.worker;
    if (!worker) return true;
    const sentBefore = this.batchesSent;
    const reply = await this.ask({ type: 'holdsNothing', id: this.nextId++ });
    // A load handed in while the thread answered is in it, or queued for it: keep the thread.
    const moved = this.worker !== worker || this.queued.length > 0 || this.batchesSent !== sentBefore;
    if (reply.type !== 'holdsNothing' || !reply.empty || moved) return false;
    this.worker = null;
    await worker.terminate();
    return true;
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.queued = [];
    const worker = this.worker;
    this.worker = null;
    for (const waiting of this.waiting.values()) waiting.reject(new Error('analytics counting closed'));
    this.waiting.clear();
    if (worker) await worker.terminate();
  }

  private send(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.queued.length === 0) return;
    const loads = this.queued;
    this.queued = [];
    this.batchesSent++;
    this.post({ type: 'loads', loads });
  }

  private post(message: CountingRequest): void {
    this.started().postMessage(message);
  }

  private ask(message: Extract<CountingRequest, { id: number }>): Promise<CountingReply> {
    return new Promise((resolve, reject) => {
      this.waiting.set(message.id, { resolve, reject });
      this.post(message);
      // Referenced while an answer is awaited: at shutdown nothing else may keep the process alive.
      this.worker?.ref();
    });
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(this.script);
    // Counting never keeps a process alive; shutdown drains it through the flush first.
    worker.unref();
    worker.on('message', (reply: CountingReply) => {
      const waiting = this.waiting.get(reply.id);
      this.waiting.delete(reply.id);
      if (this.waiting.size === 0) worker.unref();
      waiting?.resolve(reply);
    });
    const lost = (error: Error): void => {
      if (this.worker !== worker) return;
      this.worker = null;
      this.logger.warn({ err: error }, 'the analytics counting thread stopped; the counts it held are lost');
      for (const waiting of this.waiting.values()) waiting.reject(error);
      this.waiting.clear();
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`the counting thread exited with code ${code}`)));
    this.worker = worker;
    return worker;
  }
}
