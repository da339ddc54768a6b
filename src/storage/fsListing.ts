/** The folder store's listing: the keys under a folder of the bodies' tree, by walking it. */
import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fsError, isNoSuchObject } from './fsFiles.js';

/** Appends to `out` the keys of the files under `dir` (keys start with `keyPrefix`) whose first name starts with `namePrefix`. */
export async function walkKeys(dir: string, keyPrefix: string, namePrefix: string, out: string[]): Promise<void> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if (isNoSuchObject(error)) return;
    throw fsError('list', keyPrefix, error);
  }
  for (const entry of entries) {
    // Dot entries are the metadata tree and temp files of in-flight writes, never keys.
    if (entry.name.startsWith('.') || !entry.name.startsWith(namePrefix)) continue;
    const key = keyPrefix + entry.name;
    if (entry.isDirectory()) await walkKeys(join(dir, entry.name), `${key}/`, '', out);
    else if (entry.isFile()) out.push(key);
  }
}
