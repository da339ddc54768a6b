/**
 * The files an FsSiteStore wrote with `deferSync`, made durable together by `flush`: a bulk
 * write of thousands of objects then waits for the disk once instead of once per object.
 */
import { execFile } from 'node:child_process';
import { open } from 'node:fs/promises';
import { promisify } from 'node:util';
import { fsError } from './fsFiles.js';

/** Files flushed at once where `sync -f` is missing. */
const FLUSH_CONCURRENCY = 16;

export class DeferredSyncs {
  private unsynced = new Set<string>();

  /** `root` is the store's folder: its file system is the one synced. */
  constructor(private readonly root: string) {}

  add(...files: string[]): void {
    for (const file of files) this.unsynced.add(file);
  }

  /**
   * One `syncfs` of the store's file system (`sync -f`, GNU coreutils), which flushes metadata
   * too. Where that command is missing, each file is flushed on its own.
   */
  async flush(): Promise<void> {
    if (this.unsynced.size === 0) return;
    const files = [...this.unsynced];
    this.unsynced = new Set();
    try {
      await promisify(execFile)('sync', ['-f', this.root]);
      return;
    } catch {
      // No coreutils `sync -f` here: flush file by file below.
    }
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < files.length) {
        const handle = await open(files[next++]!, 'r').catch(() => null); // deleted since: nothing to flush
        if (!handle) continue;
        try {
          await handle.datasync();
        } catch (error) {
          throw fsError('flush', this.root, error);
        } finally {
          await handle.close();
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(FLUSH_CONCURRENCY, files.length) }, worker));
  }
}
