import { rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, extname, join, resolve, sep } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { StorageError } from '../domain/errors.js';
import { KeyedQueue } from '../lib/keyedQueue.js';
import { fsError, isNoSuchObject, keyProblem, md5Hex, pruneEmptyDirs, readOrNull, readRangeOrNull, unlinkIfPresent } from './fsFiles.js';
import { FALLBACK_CACHE_CONTROL, FALLBACK_TYPES, isImmutable, isMeta, type Meta } from './fsMeta.js';
import { MetaFolderNames } from './fsMetaNames.js';
import { DeferredSyncs } from './fsSync.js';
import { TempFiles } from './fsTempFiles.js';
import { removeLeftoverTemps } from './fsLeftovers.js';
import { walkKeys } from './fsListing.js';
import { WRITERS_DIR } from './fsWriters.js';
import type { PutOptions, SiteStore, StoredObject } from './siteStore.js';

export interface FsSiteStoreOptions {
  /** The folder that holds the published sites, e.g. `data/public`. */
  root: string;
  /**
   * Cache-Control of "plain" objects (the usual content type of their extension, this
   * Cache-Control, no redirect): stored without a metadata file, and an object with no
   * metadata reads back as plain. Default `no-cache`.
   */
  plainCacheControl?: string;
}

/**
 * Metadata lives in a parallel hidden tree, `<root>/.meta/<key>.json`, so `<root>` itself holds
 * only the bodies and a plain static server can serve it as is. Keys may not contain segments
 * starting with `.`, which keeps that tree and the `.tmp-*` files of in-flight writes apart
 * from every key.
 */
const META_DIR = '.meta';

/** Attempts `get` makes to find body and metadata of the same version while a put is landing. */
const CONSISTENT_READ_ATTEMPTS = 5;
const DELETE_CONCURRENCY = 16;

export class FsSiteStore implements SiteStore {
  private readonly root: string;
  private readonly metaRoot: string;
  /** Puts and deletes per key, one at a time; see `exclusive`. */
  private readonly pending = new KeyedQueue();
  private readonly temps: TempFiles;
  /** Files written with `deferSync` since the last flush. */
  private readonly unsynced: DeferredSyncs;
  private readonly plainCacheControl: string;
  /** Which metadata files exist, so a plain put need not look for one (fsMetaNames.ts). */
  private readonly metaNames: MetaFolderNames;

  constructor(options: FsSiteStoreOptions) {
    this.root = resolve(options.root);
    this.metaRoot = join(this.root, META_DIR);
    this.temps = new TempFiles(this.root, join(this.metaRoot, WRITERS_DIR));
    this.plainCacheControl = options.plainCacheControl ?? FALLBACK_CACHE_CONTROL;
    this.unsynced = new DeferredSyncs(this.root);
    this.metaNames = new MetaFolderNames(this.metaRoot);
  }

  async put(key: string, body: Buffer | string, options: PutOptions): Promise<void> {
    const file = this.bodyPath(key);
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    if (this.isPlain(key, options)) return this.putPlain(key, file, bytes, options);
    const metaFile = this.metaPath(key);
    // Queued at once, and hashed inside the queue: puts of one key land in the order they were made.
    await this.exclusive(key, async () => {
      const meta: Meta = {
        contentType: options.contentType,
        cacheControl: options.cacheControl,
        ...(options.redirectTo === undefined ? {} : { redirectTo: options.redirectTo }),
        md5: await md5Hex(bytes),
      };
      // Both temp files are written at the same time; the renames then run in order. Only the
      // body is synced, see TempFiles.write.
      const [metaTemp, bodyTemp] = await Promise.allSettled([
        this.temps.write(metaFile, JSON.stringify(meta), false),
        this.temps.write(file, bytes, !options.deferSync),
      ]);
      try {
        if (metaTemp.status === 'rejected') throw metaTemp.reason;
        if (bodyTemp.status === 'rejected') throw bodyTemp.reason;
        // Metadata first: a crash in between leaves a new meta beside the old (or no) body,
        // never a new body without its meta.
        await rename(metaTemp.value, metaFile);
        await this.metaNames.added(metaFile);
        await rename(bodyTemp.value, file);
        if (options.deferSync) this.unsynced.add(file, metaFile);
      } catch (error) {
        // Removing a temp that was already renamed is a no-op (force).
        await Promise.all(
          [metaTemp, bodyTemp].map((temp) => (temp.status === 'fulfilled' ? rm(temp.value, { force: true }).catch(() => undefined) : undefined)),
        );
        throw fsError('put', key, error);
      }
    });
  }

  /**
   * Almost every object of a site is a plain HTML page. Writing it without a metadata file
   * halves the files, renames and disk blocks of a rebuild, which is what a full rebuild waits
   * on. A metadata file left by an
   * earlier version of the object is removed after the new body is in place; until then the
   * two do not match (md5) and `get` reads again, then ignores it.
   */
  private async putPlain(key: string, file: string, bytes: Buffer, options: PutOptions): Promise<void> {
    // Queued at once, like every put of the key, so puts of one key land in the order they were made.
    await this.exclusive(key, async () => {
      const metaFile = this.metaPath(key);
      const metaNames = await this.metaNames.of(dirname(metaFile));
      const metaName = basename(metaFile);
      const temp = await this.temps.write(file, bytes, !options.deferSync).catch((error: unknown) => {
        throw fsError('put', key, error);
      });
      try {
        await rename(temp, file);
        if (options.deferSync) this.unsynced.add(file);
        if (metaNames?.has(metaName)) {
          await unlinkIfPresent(metaFile);
          metaNames.delete(metaName);
        }
      } catch (error) {
        await rm(temp, { force: true }).catch(() => undefined);
        throw fsError('put', key, error);
      }
    });
  }

  private isPlain(key: string, options: PutOptions): boolean {
    return (
      options.redirectTo === undefined && options.cacheControl === this.plainCacheControl && options.contentType === FALLBACK_TYPES[extname(key).toLowerCase()]
    );
  }

  /** Makes the files written with `deferSync` durable (fsSync.ts). */
  flush(): Promise<void> {
    return this.unsynced.flush();
  }

  /** Removes temp files killed writers left (fsLeftovers.ts); returns their paths under the root. */
  removeLeftoverTemps(): Promise<string[]> {
    return removeLeftoverTemps(this.root, join(this.metaRoot, WRITERS_DIR));
  }

  /**
   * Once every put and delete queued so far has landed, takes this process out of the register
   * of writers (fsWriters.ts): a process that never got here (killed) makes the next start look
   * for its temp files. The store still works after it; a later put marks the process again.
   */
  async close(): Promise<void> {
    await this.pending.idle();
    await this.temps.release();
  }

  getRange(key: string, start: number, end: number): Promise<Buffer | null> {
    return readRangeOrNull(this.bodyPath(key), start, end, 'get', key);
  }

  async getBody(key: string): Promise<Buffer | null> {
    // One read of one file: a put replaces the file by rename, so this is one version whole.
    return readOrNull(this.bodyPath(key), 'get', key);
  }

  async get(key: string): Promise<StoredObject | null> {
    const file = this.bodyPath(key);
    for (let attempt = 1; ; attempt++) {
      const body = await readOrNull(file, 'get', key);
      if (body === null) return null;
      const meta = await this.readMeta(key);
      if (meta !== null && isImmutable(meta.cacheControl)) {
        // An immutable object's key names one content for good (a search segment, a hashed
        // asset, a media variant): it is never replaced, so body and metadata cannot come from
        // two different puts, and the md5 recorded by its put is its etag. Not hashing it again
        // keeps a read of a large search segment at the cost of reading it.
        return {
          body,
          contentType: meta.contentType,
          cacheControl: meta.cacheControl,
          etag: `"${meta.md5}"`,
          ...(meta.redirectTo === undefined ? {} : { redirectTo: meta.redirectTo }),
        };
      }
      const md5 = await md5Hex(body);
      // A mismatch means a put landed between the two reads (or crashed between its two
      // renames); reading again soon gives a matching pair in the first case.
      if (meta !== null && meta.md5 !== md5 && attempt < CONSISTENT_READ_ATTEMPTS) {
        await sleep(attempt * 2);
        continue;
      }
      // Metadata of another body (a crash between the two renames, or the leftover of a plain
      // put that is being removed) does not describe this one: the body is served as plain.
      const own = meta !== null && meta.md5 === md5 ? meta : null;
      return {
        body,
        contentType: own?.contentType ?? FALLBACK_TYPES[extname(key).toLowerCase()] ?? 'application/octet-stream',
        cacheControl: own?.cacheControl ?? this.plainCacheControl,
        etag: `"${md5}"`,
        ...(own?.redirectTo === undefined ? {} : { redirectTo: own.redirectTo }),
      };
    }
  }

  async size(key: string): Promise<number | null> {
    try {
      const info = await stat(this.bodyPath(key));
      return info.isFile() ? info.size : null;
    } catch (error) {
      if (isNoSuchObject(error)) return null;
      throw fsError('size', key, error);
    }
  }

  async delete(key: string): Promise<void> {
    const file = this.bodyPath(key);
    const metaFile = this.metaPath(key);
    await this.exclusive(key, async () => {
      try {
        // Body first, the mirror image of put: no body is ever left with a meta that is not its own.
        await unlinkIfPresent(file);
        await unlinkIfPresent(metaFile);
        await this.metaNames.removed(metaFile);
      } catch (error) {
        throw fsError('delete', key, error);
      }
      // An emptied post folder would make nginx answer 403 instead of 404 for its URL.
      await pruneEmptyDirs(dirname(file), this.root);
      await pruneEmptyDirs(dirname(metaFile), this.metaRoot);
    });
  }

  async deleteMany(keys: string[]): Promise<void> {
    // Refuse the whole batch up front rather than after deleting part of it.
    for (const key of keys) this.bodyPath(key);
    let next = 0;
    const failures: unknown[] = [];
    const worker = async (): Promise<void> => {
      while (failures.length === 0 && next < keys.length) {
        const key = keys[next++]!;
        try {
          await this.delete(key);
        } catch (error) {
          failures.push(error);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(DELETE_CONCURRENCY, keys.length) }, worker));
    if (failures.length > 0) throw failures[0];
  }

  async list(prefix: string): Promise<string[]> {
    const slash = prefix.lastIndexOf('/');
    const folder = prefix.slice(0, slash + 1);
    // No valid key starts with a malformed folder part, and walking it could leave the root.
    if (folder !== '' && keyProblem(folder.slice(0, -1)) !== null) return [];
    const keys: string[] = [];
    await walkKeys(join(this.root, folder), folder, prefix.slice(slash + 1), keys);
    return keys.sort();
  }

  private async readMeta(key: string): Promise<Meta | null> {
    const raw = await readOrNull(this.metaPath(key), 'get', key);
    if (raw === null) return null;
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw.toString('utf8'));
    } catch {
      // Meta is only ever replaced by rename, so garbage means a hand edit; the body still serves.
      return null;
    }
    return isMeta(parsed) ? parsed : null;
  }

  /**
   * Runs puts and deletes of one key one after another. Two overlapping puts could otherwise
   * interleave as meta A, meta B, body B, body A and leave the pair mismatched for good. This
   * only covers one process, which is the only writer Folio runs.
   */
  private exclusive(key: string, task: () => Promise<void>): Promise<void> {
    return this.pending.run(key, task);
  }

  private bodyPath(key: string): string {
    const problem = keyProblem(key);
    if (problem !== null) throw new StorageError(`Refused storage key ${JSON.stringify(key)}: ${problem}`);
    const file = resolve(this.root, key);
    // Belt and braces behind keyProblem, as Ghost's _resolveAndValidateStoragePath does.
    if (!file.startsWith(this.root.endsWith(sep) ? this.root : this.root + sep)) {
      throw new StorageError(`Refused storage key ${JSON.stringify(key)}: resolves outside the root`);
    }
    return file;
  }

  private metaPath(key: string): string {
    return join(this.metaRoot, `${key}.json`);
  }
}
