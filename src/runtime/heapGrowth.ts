/**
 * Whole-blog commands (`folio site rebuild`, `folio search reindex`) allocate far more garbage
 * than they keep, and V8 lets every thread's heap grow to several times its live data before a
 * full collection: at 50,000 posts a reindex's main heap reached ~500 MB for ~130 MB live, and
 * the render and index workers grew the same way. A growing factor of 1.25 keeps the process's
 * RSS near what it holds, for more (short) collections. The flag is V8's, process-wide, read at
 * each collection: set once before the work starts, it covers the workers it starts too.
 */
import { setFlagsFromString } from 'node:v8';

/** Heap growth after a full collection, in percent of the live data. */
export const HEAP_GROWING_PERCENT = 25;

export function boundHeapGrowth(): void {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
