/**
 * The package root, found from this module's location so that the same code works from
 * src/ (vitest) and from dist/src/ (npm start): templates/ and SQL migrations live beside it.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findPackageRoot(start: string): string {
  let dir = start;
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'templates'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`package root not found above ${start}`);
    dir = parent;
  }
}

export const packageRoot = findPackageRoot(dirname(fileURLToPath(import.meta.url)));
export const templatesDir = join(packageRoot, 'templates');
export const migrationsDir = join(packageRoot, 'src', 'db', 'migrations');
