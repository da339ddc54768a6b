/**
 * The work of one snapshot, synchronous from start to end: it runs on its own worker thread
 * (snapshotWorker.ts), where blocking harms no request.
 *
 * `VACUUM INTO` copies the database as of one read transaction: a consistent snapshot. In WAL
 * mode a reader never blocks a writer, so the server keeps writing while it runs; only the
 * checkpointer cannot recycle the log past the snapshot until the copy is done. Unlike the
 * backup API it copies no free pages, so a deleted post's text is not carried along in them,
 * and it never restarts when another connection writes (the backup API does, and a busy server
 * could keep a stepped backup from the `folio` CLI restarting for ever).
 */
import Database from 'better-sqlite3';
import { closeSync, fstatSync, fsyncSync, openSync, readSync, statSync, writeSync } from 'node:fs';
import { constants, gzipSync } from 'node:zlib';

export interface SnapshotJob {
  /** The live database (folio.db). */
  source: string;
  /** Where the copy is written; must not exist. */
  copy: string;
  /** When set, the copy is also gzipped to this path (which must not exist). */
  gzipTo: string | null;
  /** How long the copy waits for SQLite's locks (a reader rarely waits at all in WAL mode). */
  busyTimeoutMs: number;
}

export interface SnapshotResult {
  /** Size of the copied database. */
  dbBytes: number;
  gzipBytes: number | null;
  copyMs: number;
  checkMs: number;
  gzipMs: number;
}

/** A snapshot that could not be made, with SQLite's error code when it came from SQLite. */
export class SnapshotError extends Error {
  readonly code: string | undefined;
  constructor(message: string, code?: string) {
    super(message);
    this.name = 'SnapshotError';
    this.code = code;
  }
}

/** Compressed in slices: memory stays bounded, and concatenated gzip members are one valid file. */
const GZIP_SLICE_BYTES = 16 * 1024 * 1024;

/**
 * A snapshot in two steps, so that something can be added to the copy in between (the media
 * objects, backupMedia.ts, read from the store on the main thread): `copy` takes the database as
 * of one read transaction, `finish` checks it, makes it self-contained and gzips it.
 */
export type SnapshotStep = 'copy' | 'finish' | 'whole';

export function makeSnapshot(job: SnapshotJob, step: SnapshotStep = 'whole'): SnapshotResult {
  let copyMs = 0;
  if (step !== 'finish') {
    const started = performance.now();
    const source = new Database(job.source, { fileMustExist: true });
    try {
      source.pragma(`busy_timeout = ${job.busyTimeoutMs}`);
      source.prepare('VACUUM INTO ?').run(job.copy);
    } finally {
      source.close();
    }
    copyMs = performance.now() - started;
    if (step === 'copy') return { dbBytes: statSync(job.copy).size, gzipBytes: null, copyMs, checkMs: 0, gzipMs: 0 };
  }

  let started = performance.now();
  const copy = new Database(job.copy, { fileMustExist: true });
  try {
    const rows = copy.pragma('integrity_check') as { integrity_check: string }[];
    if (rows.length !== 1 || rows[0]?.integrity_check !== 'ok') {
      throw new SnapshotError(
        `the copy failed SQLite's integrity check: ${rows
          .slice(0, 3)
          .map((r) => r.integrity_check)
          .join('; ')}`,
      );
    }
    // One self-contained file: no -wal beside it when someone opens it with sqlite3.
    copy.pragma('journal_mode = DELETE');
  } finally {
    copy.close();
  }
  syncFile(job.copy);
  const checkMs = performance.now() - started;
  const dbBytes = statSync(job.copy).size;

  if (job.gzipTo === null) return { dbBytes, gzipBytes: null, copyMs, checkMs, gzipMs: 0 };
  started = performance.now();
  const gzipBytes = gzipFile(job.copy, job.gzipTo);
  return { dbBytes, gzipBytes, copyMs, checkMs, gzipMs: performance.now() - started };
}

function gzipFile(from: string, to: string): number {
  const input = openSync(from, 'r');
  let output: number | null = null;
  try {
    output = openSync(to, 'wx');
    const slice = Buffer.allocUnsafe(GZIP_SLICE_BYTES);
    for (;;) {
      const read = readSync(input, slice, 0, slice.length, null);
      if (read === 0) break;
      writeAll(output, gzipSync(slice.subarray(0, read), { level: constants.Z_DEFAULT_COMPRESSION }));
    }
    fsyncSync(output);
    return fstatSync(output).size;
  } finally {
    closeSync(input);
    if (output !== null) closeSync(output);
  }
}

function writeAll(fd: number, bytes: Buffer): void {
  for (let offset = 0; offset < bytes.length; ) offset += writeSync(fd, bytes, offset, bytes.length - offset);
}

function syncFile(path: string): void {
  const fd = openSync(path, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
