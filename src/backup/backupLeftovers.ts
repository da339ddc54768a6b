/**
 * The scratch files of a backup in progress, and their removal when a killed backup left them.
 * A backup is written under a hidden name beside its target (`folio backup`) or in the data dir
 * (the server's scheduled backups), then renamed or uploaded; killed in between, the copy of the
 * whole database (and its images) stayed there, hidden, for good.
 *
 * The name carries the writer's pid: `.<time>-<pid>.folio-backup.partial…`. A leftover is one
 * whose process is gone, or one of this process that no backup of it is writing (a restarted
 * container's server is pid 1 again).
 */
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { processAlive } from '../lib/processAlive.js';
import { errnoCode } from '../storage/fsFiles.js';

const PARTIAL = /^\.\d+-(\d+)\.folio-backup\.partial/;

/** Scratch paths of this process's backups in progress. */
const active = new Set<string>();

/** A new scratch path in `dir`, its own until `release`. Files beside it may add suffixes (`.gz`). */
export function scratchPath(dir: string): string {
  const path = join(dir, `.${Date.now()}-${process.pid}.folio-backup.partial`);
  active.add(path);
  return path;
}

export function releaseScratch(path: string): void {
  active.delete(path);
}

/** Removes the leftovers of killed backups in `dir`; returns their names. A missing dir has none. */
export async function removeBackupLeftovers(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if (errnoCode(err) === 'ENOENT' || errnoCode(err) === 'ENOTDIR') return [];
    throw err;
  }
  const removed: string[] = [];
  for (const name of names) {
    const match = PARTIAL.exec(name);
    if (!match) continue;
    const pid = Number(match[1]);
    const ours = [...active].some((path) => join(dir, name).startsWith(path));
    if (ours || (pid !== process.pid && processAlive(pid))) continue;
    await rm(join(dir, name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}
