/** What a folder store holds, file by file, to show that a step wrote nothing: each file's mtime and sha256. */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

export function storeFiles(root: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files.set(relative(root, path), `${statSync(path).mtimeMs} ${createHash('sha256').update(readFileSync(path)).digest('hex')}`);
  }
  return files;
}
