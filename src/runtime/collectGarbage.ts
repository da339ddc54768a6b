/**
 * One full garbage collection on demand, for a server at rest (warmup/rest.ts): V8 collects only
 * when code allocates, so a resting process would keep the heap its last busy minute grew.
 * `--expose-gc` is set at run time rather than on the command line because the server is started
 * as plain `node dist/server/main.js` (npm start, the Docker image); the flag only makes `gc`
 * reachable, through a fresh context, and changes nothing else.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gc: (() => void) | undefined;

export function collectGarbage(): void {
  if (!gc) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
}
