/**
 * Temp files a killed writer left in the folder store. Every object appears by rename of a temp
 * file written beside it (fsTempFiles.ts); a process killed in between (an import or a rebuild
 * stopped with Ctrl-C, a server killed by the OOM killer) left `.tmp-*` files for good, hidden
 * from every listing but taking the disk. The server removes them at start (docs/operations.md, "Backups and
 * restore"): those of processes that are gone, and any older than an hour.
 */
import type { Dirent } from 'node:fs';
import { opendir, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { processAlive } from '../lib/processAlive.js';
import { isNoSuchObject } from './fsFiles.js';
import { livePrefixes, markNameOf, TEMP_NAME } from './fsTempFiles.js';
import { goneWriters, settleRegister } from './fsWriters.js';

/** A temp file lives for one write: one this old belongs to no write in flight, whoever made it. */
const ABANDONED_AFTER_MS = 60 * 60 * 1000;

async function isLeftover(path: string, name: string, now: number): Promise<boolean> {
  if ([...livePrefixes].some((prefix) => name.startsWith(prefix))) return false;
  const match = TEMP_NAME.exec(name);
  // Of this process but of no live store: a restarted container's server has the old pid again.
  if (match && (Number(match[1]) === process.pid || !processAlive(Number(match[1])))) return true;
  try {
    return now - (await stat(path)).mtimeMs > ABANDONED_AFTER_MS;
  } catch (err) {
    if (isNoSuchObject(err)) return false; // renamed meanwhile: it was in flight
    throw err;
  }
}

/**
 * Removes the leftover temp files under `root` (the bodies and the `.meta` tree); returns their
 * paths relative to it. The tree is walked only when the register of writers (`register`,
 * fsWriters.ts) names a process that is gone, or does not exist yet: a store every writer of
 * which closed it cleanly, or is still running, has none to find.
 */
export async function removeLeftoverTemps(root: string, register: string, now = Date.now()): Promise<string[]> {
  const gone = await goneWriters(register, new Set([...livePrefixes].map(markNameOf)));
  if (gone !== null && gone.length === 0) return [];
  const removed = await walkForTemps(root, now);
  await settleRegister(register, gone ?? []);
  return removed;
}

/**
 * A blog's folder holds a folder per post, so the top two levels are read in batches through
 * opendir: one readdir of its 100,000 names at 50,000 posts built them all in one callback, 90 ms
 * of the event loop. The small folders below are read with one readdir each, a third of the
 * CPU of a streamed read (16 s against 5 s for the 60,000 folders of a 50,000-post blog).
 */
async function walkForTemps(root: string, now: number): Promise<string[]> {
  const removed: string[] = [];
  const walk = async (dir: string, relative: string, depth: number): Promise<void> => {
    let entries: AsyncIterable<Dirent> | Dirent[];
    try {
      entries = depth < 2 ? await opendir(dir, { bufferSize: 512 }) : await readdir(dir, { withFileTypes: true });
    } catch (err) {
      if (isNoSuchObject(err)) return;
      throw err;
    }
    for await (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path, `${relative}${entry.name}/`, depth + 1);
      else if (entry.name.startsWith('.tmp-') && (await isLeftover(path, entry.name, now))) {
        await rm(path, { force: true });
        removed.push(`${relative}${entry.name}`);
      }
    }
  };
  await walk(root, '', 0);
  return removed;
}
