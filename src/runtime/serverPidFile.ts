/**
 * The server's pid in its data dir (`server.pid`), written at start and removed at a clean exit:
 * commands that must not run beside a server (`folio site migrate-store`: what the server
 * publishes afterwards would go into the old store) ask whether one is running. A file left by a
 * killed server names a dead process, or this one (a container restarted with the same pid), and
 * blocks nothing.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { processAlive } from '../lib/processAlive.js';

const FILE = 'server.pid';

export function writeServerPid(dataDir: string): void {
  writeFileSync(join(dataDir, FILE), `${process.pid}\n`);
}

/** Removes the file if it is this process's (a second server on the data dir may have replaced it). */
export function removeServerPid(dataDir: string): void {
  if (recordedPid(dataDir) === process.pid) rmSync(join(dataDir, FILE), { force: true });
}

function recordedPid(dataDir: string): number | null {
  let text: string;
  try {
    text = readFileSync(join(dataDir, FILE), 'utf8');
  } catch {
    return null;
  }
  const pid = Number(text.trim());
  return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
}

/** The pid of a live server on this data dir, or null (no file, a dead process's, or our own). */
export function liveServerPid(dataDir: string): number | null {
  const pid = recordedPid(dataDir);
  return pid !== null && pid !== process.pid && processAlive(pid) ? pid : null;
}
