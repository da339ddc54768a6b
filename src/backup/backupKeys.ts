/**
 * Names of the server's backups in the site store and which of them retention removes.
 *
 * They live under `_backups/`, beside `_domains/`: blog slugs are DNS labels and never start
 * with `_`, so no blog's prefix, rebuild or delete job lists them, and the site server never
 * maps a host or path to them. The time in the name sorts as text, so the newest key is last.
 */

export const BACKUP_PREFIX = '_backups/';
export const BACKUP_CONTENT_TYPE = 'application/gzip';
/** A backup holds every author's drafts and the key hashes: no cache may keep or share one. */
export const BACKUP_CACHE_CONTROL = 'private, no-store';

const KEY = /^_backups\/folio-(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})\.(\d{3})Z\.db\.gz$/;

/** `_backups/folio-2026-11-23T22-58-00.123Z.db.gz` (no colons: they are awkward in file names and URLs). */
export function backupKey(at: Date): string {
  return `${BACKUP_PREFIX}folio-${at.toISOString().replace(/:/g, '-')}.db.gz`;
}

/** When the backup of a key made by backupKey was taken, or null for any other key. */
export function backupTime(key: string): Date | null {
  const match = KEY.exec(key);
  if (!match) return null;
  const [, day, h, m, s, ms] = match;
  const at = new Date(`${day}T${h}:${m}:${s}.${ms}Z`);
  return Number.isNaN(at.getTime()) ? null : at;
}

/** The backup keys among `keys`, oldest first. Other objects under `_backups/` are not ours. */
export function backupKeys(keys: readonly string[]): string[] {
  return keys.filter((key) => backupTime(key) !== null).sort();
}

/** The keys retention deletes: all but the newest `keep` backups. */
export function expiredBackups(keys: readonly string[], keep: number): string[] {
  const ours = backupKeys(keys);
  return ours.slice(0, Math.max(0, ours.length - keep));
}
