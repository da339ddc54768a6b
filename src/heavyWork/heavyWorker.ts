/** Worker thread of the shared pool (heavyWork.ts). */
import { constants, setPriority } from 'node:os';
import { serveTasks } from '../workers/taskWorker.js';
import { heavyTransferList, runHeavyTask } from './heavyTasks.js';

// On Linux a nice value belongs to the thread that sets it (setpriority on pid 0): this lowers
// only this worker, so the event loop gets a core first whenever both want one. Elsewhere it
// lowers the whole process or fails; either way the work still gets done.
try {
  setPriority(constants.priority.PRIORITY_LOW);
} catch {
  // not permitted here: run at normal priority
}

serveTasks(runHeavyTask, heavyTransferList);
