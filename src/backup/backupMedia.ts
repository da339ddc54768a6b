/**
 * The uploaded images of a backup. The database names every image (the `media` table), but their
 * bytes are objects in the store: a backup of the database alone, restored into a new data dir,
 * rebuilt every page with every image answering 404. So a snapshot carries the objects of every
 * image, byte for byte, in a table of its own (one file still, gzip of SQLite as before), and a
 * restore puts them back into the configured store and drops the table.
 *
 * Scheduled backups into an S3 bucket leave the images where they are, in the same bucket (24
 * copies of every image beside them would multiply the bucket); that is recorded in the backup,
 * logged, and a restore checks that the bucket still has every object.
 */
import Database from 'better-sqlite3';
import { forEachConcurrently } from '../lib/concurrently.js';
import { MEDIA_DIR, mediaNames } from '../media/mediaNames.js';
import type { Media } from '../db/mediaRepo.js';
import { missingKeys } from '../storage/missingKeys.js';
import type { SiteStore } from '../storage/siteStore.js';

/** Objects of the images, by store key. */
const MEDIA_TABLE = 'folio_backup_media';
/** What the backup holds besides the database: `media` ('copied' | 'not_copied'), `store`. */
const INFO_TABLE = 'folio_backup_info';

/** Objects read from the store at once while they are copied into a backup. */
const READS_AT_ONCE = 8;
/** Keys listed in a report; the count says how many more. */
const LISTED = 20;

export interface MediaPlan {
  /** Copy the objects into the backup; false leaves them in the store (an S3 bucket). */
  copy: boolean;
  /** Where the images live, for the backup's record and messages: `folder /data/public`, `s3://bucket`. */
  store: string;
}

export interface MediaCopyResult {
  /** Objects the snapshot's images have. */
  objects: number;
  /** Objects copied into the backup and their bytes (0 when not copied). */
  copied: number;
  bytes: number;
  /** Objects named by the snapshot but not in the store (lost, or deleted since the snapshot). */
  missing: string[];
  copiedToBackup: boolean;
  store: string;
}

/** Every store key of every image the database at `db` names. */
function mediaKeys(db: Database.Database): string[] {
  // A database from before images (migration 009) names none.
  if (!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'media'").get()) return [];
  const rows = db
    .prepare(
      'SELECT b.slug AS slug, m.hash AS hash, m.width AS width, m.height AS height, m.format AS format FROM media m JOIN blogs b ON b.id = m.blog_id ORDER BY b.slug, m.hash',
    )
    .all() as (Pick<Media, 'hash' | 'width' | 'height' | 'format'> & { slug: string })[];
  return rows.flatMap((row) => mediaNames(row).map((name) => `${row.slug}/${MEDIA_DIR}/${name}`));
}

/**
 * Adds the images to a snapshot's copy (before it is checked and compressed). The copy is the
 * database as of the snapshot, so the images are exactly those its rows name.
 */
export async function addMediaToSnapshot(copyFile: string, store: SiteStore, plan: MediaPlan): Promise<MediaCopyResult> {
  const db = new Database(copyFile, { fileMustExist: true });
  try {
    // A scratch file until it is checked and renamed: no journal, no syncs (finish syncs it).
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.exec(`CREATE TABLE ${INFO_TABLE} (name TEXT PRIMARY KEY, value TEXT NOT NULL)`);
    db.exec(`CREATE TABLE ${MEDIA_TABLE} (key TEXT PRIMARY KEY, content_type TEXT NOT NULL, cache_control TEXT NOT NULL, body BLOB NOT NULL)`);
    const info = db.prepare(`INSERT INTO ${INFO_TABLE} (name, value) VALUES (?, ?)`);
    info.run('media', plan.copy ? 'copied' : 'not_copied');
    info.run('store', plan.store);
    const keys = mediaKeys(db);
    const result: MediaCopyResult = { objects: keys.length, copied: 0, bytes: 0, missing: [], copiedToBackup: plan.copy, store: plan.store };
    if (!plan.copy) return result;
    const insert = db.prepare(`INSERT INTO ${MEDIA_TABLE} (key, content_type, cache_control, body) VALUES (?, ?, ?, ?)`);
    await forEachConcurrently(keys, READS_AT_ONCE, async (key) => {
      const object = await store.get(key);
      if (!object) {
        result.missing.push(key);
        return;
      }
      insert.run(key, object.contentType, object.cacheControl, object.body);
      result.copied += 1;
      result.bytes += object.body.length;
    });
    result.missing.sort();
    return result;
  } finally {
    db.close();
  }
}

export interface MediaRestoreResult {
  /** How the backup holds the images: copied into it, left in the store, or an older backup that does not say. */
  inBackup: 'copied' | 'not_copied' | 'unknown';
  /** Where the images were when the backup was taken (copied and not_copied backups). */
  backupStore: string | null;
  /** Objects put into the store from the backup. */
  restored: number;
  /** Objects the database names. */
  objects: number;
  /** Objects the database names that the store does not have after the restore. */
  missing: string[];
}

/**
 * Puts the images of a restored database file (not yet named folio.db) into `store`, drops the
 * backup's own tables, and checks that the store has every object the database names.
 */
export async function restoreMedia(file: string, store: SiteStore): Promise<MediaRestoreResult> {
  const db = new Database(file, { fileMustExist: true });
  try {
    const tables = new Set((db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((r) => r.name));
    const info = new Map(
      tables.has(INFO_TABLE)
        ? (db.prepare(`SELECT name, value FROM ${INFO_TABLE}`).all() as { name: string; value: string }[]).map((r) => [r.name, r.value])
        : [],
    );
    const media = info.get('media');
    const result: MediaRestoreResult = {
      inBackup: media === 'copied' || media === 'not_copied' ? media : 'unknown',
      backupStore: info.get('store') ?? null,
      restored: 0,
      objects: 0,
      missing: [],
    };
    if (tables.has(MEDIA_TABLE)) {
      // One object in memory at a time: a backup's images can be far larger than memory.
      const rows = db.prepare(`SELECT rowid AS id FROM ${MEDIA_TABLE} ORDER BY rowid`).all() as { id: number }[];
      const read = db.prepare(`SELECT key, content_type, cache_control, body FROM ${MEDIA_TABLE} WHERE rowid = ?`);
      for (const { id } of rows) {
        const row = read.get(id) as { key: string; content_type: string; cache_control: string; body: Buffer };
        await store.put(row.key, row.body, { contentType: row.content_type, cacheControl: row.cache_control });
        result.restored += 1;
      }
    }
    const keys = mediaKeys(db);
    result.objects = keys.length;
    result.missing = await missingKeys(store, keys);
    if (tables.has(MEDIA_TABLE) || tables.has(INFO_TABLE)) {
      db.exec(`DROP TABLE IF EXISTS ${MEDIA_TABLE}; DROP TABLE IF EXISTS ${INFO_TABLE}`);
      // The images' pages are free now: give them back, the database is only the database again.
      db.exec('VACUUM');
    }
    return result;
  } finally {
    db.close();
  }
}

/** The first keys, then how many more, for messages: `a, b, c, … (17 more)`. */
export function describeKeys(keys: readonly string[]): string {
  return `${keys.slice(0, LISTED).join(', ')}${keys.length > LISTED ? `, … (${keys.length - LISTED} more)` : ''}`;
}
