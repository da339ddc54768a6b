/**
 * The counting thread (countingThread.ts): a ViewTally fed in batches. Messages are handled in
 * the order they were sent, so a drain counts every load handed in before it.
 */
import { parentPort } from 'node:worker_threads';
import type { CountingReply, CountingRequest } from './countingMessages.js';
import { ViewTally } from './viewTally.js';

const tally = new ViewTally();
const reply = (message: CountingReply): void => parentPort?.postMessage(message);

parentPort?.on('message', (message: CountingRequest) => {
  switch (message.type) {
    case 'loads':
      for (const load of message.loads) tally.add(load);
      return;
    case 'restore':
      tally.restore(message.batch);
      return;
    case 'drain':
      reply({ type: 'drained', id: message.id, batch: tally.drain() });
      return;
    case 'sizes':
      reply({ type: 'sizes', id: message.id, sizes: tally.sizes() });
      return;
  }
});
