/**
 * The entries of each metadata folder of an FsSiteStore read so far, kept up to date by the
 * store's own writes: a plain put then removes a metadata file only where one exists, without a
 * system call per put. A folder is read on the first plain put into it, and only when its parent
 * lists it: most post folders have no metadata, and one read of their parent answers for all of
 * them. Folders are read one at a time as puts reach them, never the whole tree, so the first
 * publish after a restart does not wait on a walk of every metadata file.
 *
 * A folder's names stay remembered once read (a failed read is forgotten, so the next put tries
 * again), which is why this is a map of reads and not a SingleFlight.
 */
import { readdir } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { isNoSuchObject } from './fsFiles.js';

export class MetaFolderNames {
  private readonly folders = new Map<string, Promise<Set<string>>>();

  /** `metaRoot` is the top of the metadata tree, whose names are always read. */
  constructor(private readonly metaRoot: string) {}

  /** The entries of a metadata folder; null when its parent does not list it (nothing remembered). */
  async of(dir: string): Promise<Set<string> | null> {
    if (!this.folders.has(dir) && dir !== this.metaRoot) {
      const parent = await this.of(dirname(dir));
      if (!parent?.has(basename(dir))) return null;
    }
    let names = this.folders.get(dir);
    if (!names) {
      names = readdir(dir).then(
        // Temp files of writes in flight are listed too; they never match a key's name.
        (entries) => new Set(entries),
        (error: unknown) => {
          // Gone (pruned since its parent was read): empty, and kept current like any other.
          if (isNoSuchObject(error)) return new Set<string>();
          this.folders.delete(dir); // unreadable now: the next put into it tries again
          throw error;
        },
      );
      this.folders.set(dir, names);
    }
    return names;
  }

  /**
   * A metadata file was put: the folders read so far learn its name, and the names of the folders
   * its put may have created on the way (TempFiles creates them).
   */
  async added(metaFile: string): Promise<void> {
    for (let entry = metaFile; entry.length > this.metaRoot.length; entry = dirname(entry)) {
      (await this.folders.get(dirname(entry)))?.add(basename(entry));
    }
  }

  /** A metadata file was deleted. */
  async removed(metaFile: string): Promise<void> {
    (await this.folders.get(dirname(metaFile)))?.delete(basename(metaFile));
  }
}
