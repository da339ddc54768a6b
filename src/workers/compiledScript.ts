/**
 * Worker threads need compiled JavaScript: Node 20 cannot start a `.ts` worker. Workers are
 * found by their place in the dist/src tree that `tsc` emits, from the package root, never beside
 * the calling module: the server runs from a bundle (dist/server/, see scripts/bundleServer.mjs) whose
 * modules no longer sit where their sources do, and under vitest the caller is its `.ts` source
 * (the worker then comes from the dist/ tree `npm test` builds first, so tests exercise the same
 * threads production uses). Null when no compiled file exists.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot } from '../lib/paths.js';

/** `path` is the worker's module under src/, without extension: `publish/parallel/renderWorker`. */
export function compiledScript(path: string): URL | null {
  const file = join(packageRoot, 'dist', 'src', `${path}.js`);
  return existsSync(file) ? pathToFileURL(file) : null;
}
