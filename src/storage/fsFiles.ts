/**
 * Small file-system helpers of the folder store: key checks, reads and deletes that treat a
 * missing file as no object, and the mapping of errno failures to StorageError.
 */
import { createHash } from 'node:crypto';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { rmdir, unlink } from 'node:fs/promises';
import { dirname, sep } from 'node:path';
import { StorageError } from '../domain/errors.js';
import { closeFd, openFd, readFd, sizeOfFd } from './fdCalls.js';

/** Why a key is refused, or null when it is a valid key. */
export function keyProblem(key: string): string | null {
  if (key === '') return 'empty';
  if (key.includes('\0')) return 'contains NUL';
  if (key.includes('\\')) return 'contains a backslash';
  if (key.startsWith('/')) return 'absolute';
  for (const segment of key.split('/')) {
    if (segment === '') return 'empty segment';
    if (segment === '..') return 'climbs out of the root';
    if (segment.startsWith('.')) return 'segment starts with "." (reserved for metadata and temp files)';
  }
  return null;
}

/**
 * Errno codes that mean "no object by that key" when reading, deleting or listing. ENOTDIR: a
 * parent is a file (key `a/b` beside object `a`); EISDIR: the key is a folder; ENAMETOOLONG: a
 * segment over 255 bytes or a path over PATH_MAX can never have been written, so a site request
 * for a 6,000-character path is a 404, not a 500.
 */
const NO_SUCH_OBJECT = new Set(['ENOENT', 'ENOTDIR', 'EISDIR', 'ENAMETOOLONG']);

export function isNoSuchObject(error: unknown): boolean {
  const code = errnoCode(error);
  return code !== undefined && NO_SUCH_OBJECT.has(code);
}

/**
 * The whole file, or null when it does not exist. One read of its size rather than readFile's
 * parts: each part waits for a turn of the event loop, which would stretch a warm-up's reads
 * across the first requests' work. Files here are replaced by rename, never grown in place.
 */
export function readOrNull(file: string, operation: string, key: string): Promise<Buffer | null> {
  return readBytes(file, null, operation, key);
}

/** Bytes [start, end) of a file (fewer at its end), or null when it does not exist. */
export function readRangeOrNull(file: string, start: number, end: number, operation: string, key: string): Promise<Buffer | null> {
  return readBytes(file, { start, end }, operation, key);
}

/** One open, reads until the span is filled or the file ends, one close. */
async function readBytes(file: string, span: { start: number; end: number } | null, operation: string, key: string): Promise<Buffer | null> {
  let fd: number;
  try {
    fd = await openFd(file, 'r');
  } catch (error) {
    if (isNoSuchObject(error)) return null;
    throw fsError(operation, key, error);
  }
  try {
    const start = span?.start ?? 0;
    const length = span ? Math.max(0, span.end - span.start) : await sizeOfFd(fd);
    // Not from the shared pool: a body may be kept (the site server's cache) long after.
    const buffer = Buffer.allocUnsafeSlow(length);
    let filled = 0;
    while (filled < length) {
      const bytesRead = await readFd(fd, buffer, filled, length - filled, start + filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return filled === length ? buffer : buffer.subarray(0, filled);
  } catch (error) {
    // A folder where a file was expected (EISDIR on read) is no object either.
    if (isNoSuchObject(error)) return null;
    throw fsError(operation, key, error);
  } finally {
    await closeFd(fd);
  }
}

export async function unlinkIfPresent(file: string): Promise<void> {
  try {
    await unlink(file);
  } catch (error) {
    // No object by that key, so nothing to delete.
    if (!isNoSuchObject(error)) throw error;
  }
}

/** Best effort: the delete itself already succeeded, and a folder in use is simply kept. */
export async function pruneEmptyDirs(from: string, stopAt: string): Promise<void> {
  for (let dir = from; dir.startsWith(stopAt + sep); dir = dirname(dir)) {
    try {
      await rmdir(dir);
    } catch {
      return;
    }
  }
}

/** Hashed per turn of the event loop: a search segment of a large blog is tens of megabytes. */
const MD5_SLICE = 4 * 1024 * 1024;

/**
 * The md5 of `bytes`, a slice per turn of the event loop: hashing a large object at once would
 * hold the loop, and every other tenant's request would wait it out.
 */
export async function md5Hex(bytes: Buffer): Promise<string> {
  const hash = createHash('md5');
  for (let at = 0; at < bytes.length; at += MD5_SLICE) {
    if (at > 0) await yieldToLoop();
    hash.update(bytes.subarray(at, at + MD5_SLICE));
  }
  return hash.digest('hex');
}

export function errnoCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}

export function fsError(operation: string, key: string, cause: unknown): StorageError {
  if (cause instanceof StorageError) return cause;
  const code = errnoCode(cause) ?? (cause instanceof Error ? cause.message : String(cause));
  return new StorageError(`fs ${operation} failed for ${JSON.stringify(key)}: ${code}`, { cause });
}
