/**
 * The counting thread (countingThread.ts): a ViewTally fed in batches. Messages are handled in
 * the order they were sent, so a drain counts every load handed in before it.
 */
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { COUNTING_NICE, type CountingReply, type CountingRequest } from './countingMessages.js';
import { ViewTally } from './viewTally.js';

// On Linux the nice value belongs to each thread and `setPriority(n)` sets the calling thread's
// alone; elsewhere it would lower the whole server, so it is left alone there.
if (process.platform === 'linux') {
  try {
    setPriority(COUNTING_NICE);
  } catch {
    // A sandbox that forbids it: counting runs at the server's priority, as it did before.
  }
}

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
    case 'holdsNothing':
      reply({ type: 'holdsNothing', id: message.id, empty: tally.holdsNothing() });
      return;
  }
});
