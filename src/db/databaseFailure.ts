/**
 * Why the database could not be opened, as one line naming the path and what to do. The server
 * and the CLI print it instead of SQLite's or Node's stack trace: an operator meeting an
 * unwritable data dir, a locked database or a full disk needs the path and the fix, not the
 * call stack of better-sqlite3.
 */
import { dirname } from 'node:path';
import { isDiskFull } from '../domain/errors.js';

/** Opening the database failed for a reason the operator can fix; the message says how. */
export class DatabaseOpenError extends Error {
  constructor(
    message: string,
    /** The database was locked by another process: trying again later may succeed. */
    readonly busy = false,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'DatabaseOpenError';
  }
}

function codeOf(err: unknown): string {
  return typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : '';
}

/** The one-line explanation of `err`, or null when it is not a failure of the data dir or the file. */
export function databaseOpenFailure(err: unknown, file: string): DatabaseOpenError | null {
  if (err instanceof DatabaseOpenError) return err;
  const dir = dirname(file);
  const code = codeOf(err);
  const options = { cause: err };
  const fix = 'set FOLIO_DATA_DIR to a writable folder, or create this one and give the user running folio write access to it';
  if (isDiskFull(err)) {
    return new DatabaseOpenError(
      `the disk holding ${dir} is full (${code}); free some space (or move FOLIO_DATA_DIR to a bigger disk), then try again`,
      false,
      options,
    );
  }
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new DatabaseOpenError(
      `the database ${file} is locked by another process (a folio server or command, a backup, or a sqlite3 shell on the same data dir); stop it or wait for it to finish, then try again`,
      true,
      options,
    );
  }
  if (code === 'ENOTDIR' || code === 'EEXIST') {
    return new DatabaseOpenError(`the data dir ${dir} cannot be created: part of that path is a file, not a folder; ${fix}`, false, options);
  }
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
    return new DatabaseOpenError(`the data dir ${dir} cannot be created or written (${code}); ${fix}`, false, options);
  }
  if (code.startsWith('SQLITE_CANTOPEN')) {
    return new DatabaseOpenError(`the database ${file} cannot be opened (${code}): the data dir is missing or not writable; ${fix}`, false, options);
  }
  if (code.startsWith('SQLITE_READONLY')) {
    return new DatabaseOpenError(`the database ${file} or its folder is read-only (${code}); ${fix}`, false, options);
  }
  if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) {
    return new DatabaseOpenError(
      `${file} is not a Folio database or is damaged (${code}); move it away and restore a backup (README "Backups and restore")`,
      false,
      options,
    );
  }
  if (code.startsWith('SQLITE_IOERR')) {
    return new DatabaseOpenError(`reading or writing the database ${file} failed (${code}); check the disk and the data dir, then try again`, false, options);
  }
  return null;
}
