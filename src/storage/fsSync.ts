/**
 * The files an FsSiteStore wrote with `deferSync`, made durable together by `flush`: a bulk
 * write of thousands of objects then waits for the disk once instead of once per object.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { closeFd, datasyncFd, openFd } from './fdCalls.js';
import { fsError } from './fsFiles.js';

/** Files flushed at once, file by file. */
const FLUSH_CONCURRENCY = 16;
/**
 * Up to this many files are flushed one by one (in libuv's thread pool); more, with one
 * `sync -f`. Starting a child process costs the event loop several milliseconds of CPU in a
 * large server process, more than a publish's few dozen fdatasyncs, and a publish flushes
 * several times; a rebuild's thousands of files are still one syncfs.
 */
const FILE_BY_FILE_UP_TO = 64;

export class DeferredSyncs {
  private unsynced = new Set<string>();

  /** `root` is the store's folder: its file system is the one synced. */
  constructor(private readonly root: string) {}

  add(...files: string[]): void {
    for (const file of files) this.unsynced.add(file);
  }

  /**
   * A few files: each flushed on its own (fdatasync). Many: one `syncfs` of the store's file
   * system (`sync -f`, GNU coreutils), which flushes metadata too; where that command is
   * missing, each file on its own as well.
   */
  async flush(): Promise<void> {
    if (this.unsynced.size === 0) return;
    const files = [...this.unsynced];
    this.unsynced = new Set();
    if (files.length > FILE_BY_FILE_UP_TO) {
      try {
        await promisify(execFile)('sync', ['-f', this.root]);
        return;
      } catch {
        // No coreutils `sync -f` here: flush file by file below.
      }
    }
    await flushEach(files, this.root);
  }
}

/** fdatasync of each file, FLUSH_CONCURRENCY at a time. */
async function flushEach(files: readonly string[], root: string): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < files.length) {
      const fd = await openFd(files[next++]!, 'r').catch(() => null); // deleted since: nothing to flush
      if (fd === null) continue;
      try {
        await datasyncFd(fd);
      } catch (error) {
        throw fsError('flush', root, error);
      } finally {
        await closeFd(fd);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(FLUSH_CONCURRENCY, files.length) }, worker));
}
