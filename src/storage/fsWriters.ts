/**
 * The folder store's register of writers, `<root>/.meta/.writers/`: a process leaves a file named
 * after its temp prefix there before its first temp file, and removes it when it closes the store
 * with no write in flight. A file whose process is gone is the only sign that temp files may have
 * been left behind, so the walk of the whole tree for them (fsLeftovers.ts) runs only then, or
 * when there is no register yet (a store an older Folio wrote): a 100,000-post blog's tree is
 * 360,000 entries, several seconds of a core at every start.
 */
import { mkdir, open, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { processAlive } from '../lib/processAlive.js';
import { isNoSuchObject } from './fsFiles.js';

/** Inside the metadata tree, under a name no key can have (keys' segments never start with `.`). */
export const WRITERS_DIR = '.writers';

/** `<pid>-<token>`: the temp prefix `.tmp-<pid>-<token>-` without its dots. */
const MARK_NAME = /^(\d+)-([0-9a-f]+)$/;
/**
 * Written once a walk has found every leftover, or by the first writer of a store that was empty
 * (there was nothing to find): until then the marks cannot tell (an older Folio wrote none, and
 * this process may have made the folder for its own mark just now).
 */
const SWEPT = 'swept';

/** One process's mark in the register. */
export class WriterMark {
  private made: Promise<void> | undefined;

  constructor(
    /** The store's folder: empty or absent when this process's mark is the first, see make(). */
    private readonly root: string,
    private readonly register: string,
    /** `<pid>-<token>`, see MARK_NAME. */
    private readonly name: string,
  ) {}

  /** Resolves once the mark exists; every temp file is created after it. */
  ensure(): Promise<void> {
    this.made ??= this.make().catch((error: unknown) => {
      this.made = undefined;
      throw error;
    });
    return this.made;
  }

  /** Removes the mark (the caller has no write in flight): the next start need not walk for this process's files. */
  async remove(): Promise<void> {
    if (!this.made) return;
    await this.made.catch(() => undefined);
    this.made = undefined;
    await rm(join(this.register, this.name), { force: true });
  }

  private async make(): Promise<void> {
    // Any writer makes the register before its first temp file, so an empty folder has none.
    // Saying so spares the server's first start after `folio import` or `folio site rebuild`
    // into a new data dir a walk of every file they wrote (minutes of a core at 100,000 posts).
    const fresh = await isEmptyFolder(this.root);
    await mkdir(this.register, { recursive: true });
    if (fresh) await (await open(join(this.register, SWEPT), 'w')).close();
    // Empty, and not synced: a journalling file system commits this entry before the temp
    // files created after it, and a mark lost anyway only leaves a temp file until a later walk.
    // A sync here cost the first publish after a restart tens of milliseconds.
    await (await open(join(this.register, this.name), 'w')).close();
  }
}

async function isEmptyFolder(path: string): Promise<boolean> {
  try {
    return (await readdir(path)).length === 0;
  } catch (error) {
    if (isNoSuchObject(error)) return true;
    throw error;
  }
}

/**
 * The marks of writers that are gone: processes no longer running, and an earlier process with
 * this one's pid (a restarted container's server) unless the mark is one of `own`. Null when no
 * walk has completed since the register began, so nothing can be told from it.
 */
export async function goneWriters(register: string, own: ReadonlySet<string>): Promise<string[] | null> {
  let names: string[];
  try {
    names = await readdir(register);
  } catch (error) {
    if (isNoSuchObject(error)) return null;
    throw error;
  }
  if (!names.includes(SWEPT)) return null;
  return names.filter((name) => {
    const match = MARK_NAME.exec(name);
    if (!match || own.has(name)) return false;
    const pid = Number(match[1]);
    return pid === process.pid || !processAlive(pid);
  });
}

/** After a walk: the register counts from now on, and the gone writers' marks are let go. */
export async function settleRegister(register: string, gone: readonly string[]): Promise<void> {
  await mkdir(register, { recursive: true });
  await (await open(join(register, SWEPT), 'w')).close();
  await Promise.all(gone.map((name) => rm(join(register, name), { force: true })));
}
