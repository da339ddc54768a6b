/**
 * The folder store's temp files: every body and metadata file appears by rename of a temp file
 * written beside it, so readers never see part of one.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { closeFd, datasyncFd, openFd, writeAllFd } from './fdCalls.js';
import { errnoCode } from './fsFiles.js';
import { WriterMark } from './fsWriters.js';

/** `.tmp-<pid>-<token>-<counter>`: whose temp file it is, so a later start can tell leftovers (fsLeftovers.ts). */
export const TEMP_NAME = /^\.tmp-(\d+)-([0-9a-f]+)-[0-9a-z]+$/;

/** Prefixes of the TempFiles of this process: their files may be in flight. */
export const livePrefixes = new Set<string>();

/** A prefix's name in the register of writers: `.tmp-<pid>-<token>-` → `<pid>-<token>`. */
export const markNameOf = (prefix: string): string => prefix.slice('.tmp-'.length, -1);

export class TempFiles {
  /** Temp names are this prefix plus a counter: unique per store, cheaper than random bytes per write. */
  private readonly prefix = `.tmp-${process.pid}-${randomBytes(6).toString('hex')}-`;
  private counter = 0;
  private readonly mark: WriterMark;

  /** `register`: the register of writers (fsWriters.ts) of the store in `root`, marked before the first temp file. */
  constructor(root: string, register: string) {
    livePrefixes.add(this.prefix);
    this.mark = new WriterMark(root, register, markNameOf(this.prefix));
  }

  /** Called with no write in flight (the store closing): a later start need not look for this process's temp files. */
  release(): Promise<void> {
    return this.mark.remove();
  }

  /**
   * Writes `data` to a new temp file in the target's own folder (so the rename never crosses
   * file systems) and returns its path.
   *
   * Durability, weighed against two syncs per object, which would make a full rebuild slow:
   * - A body is flushed (fdatasync: data and size, no timestamps) before the caller renames it
   *   over the target. Without that a power cut after the rename can leave an empty page behind
   *   (delayed allocation), and nothing would notice: writeSite skips objects whose hash it has.
   * - Metadata is not synced. A power cut can leave it empty or cut short; readMeta then finds
   *   no valid JSON and get() serves the intact body with the fallback headers (type from the
   *   extension, `no-cache`, no redirect). `folio site verify` reports such objects as different and
   *   a forced rebuild rewrites them.
   * - Folders are not synced after the rename either, so a power cut may undo a rename and keep
   *   the previous complete version: the same verify / forced rebuild repairs it.
   * Readers never see part of a file in any of these cases: every file appears by rename.
   */
  async write(target: string, data: Buffer | string, sync: boolean): Promise<string> {
    await this.mark.ensure();
    const dir = dirname(target);
    const temp = join(dir, `${this.prefix}${(this.counter++).toString(36)}`);
    let fd: number;
    for (let attempt = 1; ; attempt++) {
      try {
        fd = await openFd(temp, 'wx');
        break;
      } catch (error) {
        // The folder is missing. It is created on demand, not before the first write into it:
        // a restarted server's first publish made a mkdir call for each of the dozens of
        // folders it writes into. A delete of a sibling key may prune it again before our open.
        if (errnoCode(error) !== 'ENOENT' || attempt === 3) throw error;
        await mkdir(dir, { recursive: true });
      }
    }
    try {
      await writeAllFd(fd, data);
      if (sync) await datasyncFd(fd);
    } catch (error) {
      await closeFd(fd).catch(() => undefined);
      await rm(temp, { force: true }).catch(() => undefined);
      throw error;
    }
    try {
      await closeFd(fd);
    } catch (error) {
      await rm(temp, { force: true }).catch(() => undefined);
      throw error;
    }
    return temp;
  }
}
