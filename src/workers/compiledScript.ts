/**
 * Worker threads need compiled JavaScript: Node 20 cannot start a `.ts` worker. From dist/ (npm
 * start, the CLI, benches) the worker is the `.js` file beside the calling module. Under vitest
 * the caller is its `.ts` source; the worker is then taken from the dist/ tree `npm test` builds
 * first, so tests exercise the same threads production uses. Null when no compiled file exists.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join, relative } from 'node:path';
import { packageRoot } from '../paths.js';

export function compiledScript(callerUrl: string, name: string): URL | null {
  const caller = fileURLToPath(callerUrl);
  let file = join(dirname(caller), `${name}.js`);
  if (caller.endsWith('.ts')) file = join(packageRoot, 'dist', relative(packageRoot, dirname(caller)), `${name}.js`);
  return existsSync(file) ? pathToFileURL(file) : null;
}
