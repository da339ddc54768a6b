/**
 * `<blog>/_search/manifest.json`: the commit point of a blog's index. It names the live
 * segments and their deleted ordinals (tombstones); a segment that is not listed does not
 * exist for readers, whatever the store holds. Small by design: one line per segment, and
 * tombstones only until a merge purges them.
 */
import { randomBytes } from 'node:crypto';
import { SearchIndexFormatError } from './segmentCodec.js';

export const MANIFEST_FORMAT_VERSION = 1;

export interface SegmentEntry {
  /** Unique for all time (counter + random suffix), so a cached segment is never stale. */
  id: string;
  /** Documents stored in the segment, deleted ones included. */
  docs: number;
  /** Ordinals of deleted or superseded documents, ascending. */
  deleted: number[];
  /** Size of the stored object, and of its content uncompressed (the same for format 3). */
  bytes: number;
  rawBytes: number;
  /**
   * 3: a version 3 segment stored as it is (`seg-<id>.bin`), opened without decoding it whole.
   * Absent: a version 1 or 2 segment, gzip-compressed (`seg-<id>.bin.gz`), from before.
   */
  format?: 3;
}

export interface Manifest {
  format: 'folio-search-manifest';
  formatVersion: number;
  /** Changes on every write; readers compare it to decide whether anything changed. */
  revision: string;
  generation: number;
  nextSegment: number;
  /** The small segment that publishes rewrite; null until the first upsert. */
  head: string | null;
  segments: SegmentEntry[];
}

export function searchPrefix(blogSlug: string): string {
  return `${blogSlug}/_search/`;
}

export function manifestKey(blogSlug: string): string {
  return `${searchPrefix(blogSlug)}manifest.json`;
}

const PLAIN_SUFFIX = '.bin';
const GZIP_SUFFIX = '.bin.gz';

/** Where a segment is stored. */
export function segmentKey(blogSlug: string, entry: Pick<SegmentEntry, 'id' | 'format'>): string {
  return `${searchPrefix(blogSlug)}seg-${entry.id}${entry.format === 3 ? PLAIN_SUFFIX : GZIP_SUFFIX}`;
}

/** Every key a segment of this id may be stored under (for deletes, which need not know its format). */
export function segmentKeysOf(blogSlug: string, segmentId: string): string[] {
  return [segmentKey(blogSlug, { id: segmentId, format: 3 }), segmentKey(blogSlug, { id: segmentId })];
}

export function emptyManifest(): Manifest {
  return {
    format: 'folio-search-manifest',
    formatVersion: MANIFEST_FORMAT_VERSION,
    revision: newRevision(),
    generation: 0,
    nextSegment: 1,
    head: null,
    segments: [],
  };
}

export function newRevision(): string {
  return randomBytes(8).toString('hex');
}

/** Reserves the next segment id in `manifest` (mutates its counter). */
export function allocateSegmentId(manifest: Manifest): string {
  const id = `${manifest.nextSegment.toString(36).padStart(6, '0')}-${randomBytes(4).toString('hex')}`;
  manifest.nextSegment++;
  return id;
}

/** A copy carrying a new revision and generation, ready to be edited and written. */
export function nextManifest(current: Manifest): Manifest {
  return {
    ...current,
    revision: newRevision(),
    generation: current.generation + 1,
    segments: current.segments.map((s) => ({ ...s, deleted: [...s.deleted] })),
  };
}

function isSegmentEntry(value: unknown): value is SegmentEntry {
  const s = value as Partial<SegmentEntry> | null;
  return (
    typeof s === 'object' &&
    s !== null &&
    typeof s.id === 'string' &&
    /^[0-9a-z]+-[0-9a-f]+$/.test(s.id) &&
    Number.isInteger(s.docs) &&
    Array.isArray(s.deleted) &&
    s.deleted.every((d) => Number.isInteger(d) && d >= 0 && d < (s.docs ?? 0)) &&
    typeof s.bytes === 'number' &&
    typeof s.rawBytes === 'number' &&
    (s.format === undefined || s.format === 3)
  );
}

export function parseManifest(key: string, body: Buffer): Manifest {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    throw new SearchIndexFormatError(key, 'manifest is not JSON');
  }
  const m = value as Partial<Manifest> | null;
  if (typeof m !== 'object' || m === null || m.format !== 'folio-search-manifest') throw new SearchIndexFormatError(key, 'not a search manifest');
  if (m.formatVersion !== MANIFEST_FORMAT_VERSION) {
    throw new SearchIndexFormatError(
      key,
      `manifest format version ${String(m.formatVersion)} is not supported (this build reads version ${MANIFEST_FORMAT_VERSION})`,
    );
  }
  const valid =
    typeof m.revision === 'string' &&
    Number.isInteger(m.generation) &&
    Number.isInteger(m.nextSegment) &&
    (m.head === null || typeof m.head === 'string') &&
    Array.isArray(m.segments) &&
    m.segments.every(isSegmentEntry) &&
    (m.head === null || m.segments.some((s) => s.id === m.head));
  if (!valid) throw new SearchIndexFormatError(key, 'manifest is malformed');
  return m as Manifest;
}

export function serializeManifest(manifest: Manifest): string {
  return JSON.stringify(manifest);
}

/** Marks a document of a segment deleted (a tombstone); a no-op when it already is. */
export function addTombstone(manifest: Manifest, segmentId: string, ordinal: number): void {
  const entry = manifest.segments.find((s) => s.id === segmentId);
  if (!entry || entry.deleted.includes(ordinal)) return;
  entry.deleted.push(ordinal);
  entry.deleted.sort((a, b) => a - b);
}

/** Replaces a segment's tombstones with the ordinals flagged in `drop`. */
export function setTombstones(manifest: Manifest, segmentId: string, drop: Uint8Array): void {
  const entry = manifest.segments.find((s) => s.id === segmentId);
  if (!entry) return;
  entry.deleted = [];
  drop.forEach((dropped, ordinal) => {
    if (dropped) entry.deleted.push(ordinal);
  });
}

/** The segment id of a stored segment's key, or null for any other key. */
export function segmentIdOf(blogSlug: string, key: string): string | null {
  const prefix = `${searchPrefix(blogSlug)}seg-`;
  if (!key.startsWith(prefix)) return null;
  for (const suffix of [GZIP_SUFFIX, PLAIN_SUFFIX]) if (key.endsWith(suffix)) return key.slice(prefix.length, key.length - suffix.length);
  return null;
}
