/**
 * Loads blogs' indexes from the SiteStore and keeps them in memory, least recently used first
 * out, within a byte budget. Every search re-reads the small manifest and compares it (etag,
 * then revision) with what is cached, so a change written by another process is seen on the
 * next query; only segments the cache does not hold yet are fetched (segment ids are never
 * reused, so a cached segment is never stale). A writer in this process calls `install` so
 * its own change is visible at once (read-your-writes).
 */
import { StorageError } from '../domain/errors.js';
import { SingleFlight } from '../lib/singleFlight.js';
import type { SiteStore } from '../storage/siteStore.js';
import { IndexSnapshot } from './indexSnapshot.js';
import { LoadedSegment, SegmentView } from './loadedSegment.js';
import { manifestKey, parseManifest, segmentKey, type Manifest, type SegmentEntry } from './manifest.js';
import { runSearch, type MatchExecutor } from './ranking.js';
import { decodeSegment, SEGMENT_FORMAT_VERSION, SearchIndexFormatError, segmentVersion } from './segmentCodec.js';
import { StoredSegment } from './segmentV3.js';
import type { SegmentData } from './segmentData.js';
import type { SearchPage, SearchResult } from './searchTypes.js';

/** Sized for a 1 GB VM, which also runs the rest of the server. */
export const DEFAULT_CACHE_BYTES = 256 * 1024 * 1024;

export interface SearchIndexCacheOptions {
  /** Memory budget for decoded indexes, estimated per segment (default 256 MB). */
  maxBytes?: number;
  executor?: MatchExecutor;
  /**
   * Turns a stored segment of an older format (1 or 2, decoded whole) into its data. The default
   * does it in place; the server uses worker threads for large segments, so decoding one does
   * not hold the event loop. Current segments open lazily, without it.
   */
  decode?: (key: string, body: Buffer) => Promise<SegmentData>;
}

interface Entry {
  snapshot: IndexSnapshot;
  /** Etag of the manifest object the snapshot came from; undefined after `install`. */
  etag: string | undefined;
}

/** A segment listed by the manifest vanished: a writer replaced it between our two reads. */
class SegmentGoneError extends Error {}

const LOAD_ATTEMPTS = 3;

export class SearchIndexCache {
  private readonly entries = new Map<string, Entry>();
  private readonly loading = new SingleFlight<string, IndexSnapshot | null>();
  /** Bumped by every `install`, so loads can tell whether they were overtaken. */
  private readonly epochs = new Map<string, number>();
  /** The memory budget (FOLIO_SEARCH_CACHE_MB). */
  readonly maxBytes: number;
  private readonly executor: MatchExecutor;
  private readonly decode: (key: string, body: Buffer) => Promise<SegmentData>;
  private bytes = 0;

  constructor(
    private readonly store: SiteStore,
    options: SearchIndexCacheOptions = {},
  ) {
    this.maxBytes = options.maxBytes ?? DEFAULT_CACHE_BYTES;
    this.executor = options.executor ?? 'postings';
    this.decode = options.decode ?? decodeSegment;
  }

  /**
   * GET /search: published posts of the blog matching every word of `q`. While the store cannot
   * be read, the index already in memory answers (stale at most by the changes that could not
   * be written either); only a blog whose index was never loaded fails, with the StorageError.
   */
  async search(blogSlug: string, q: string, page: SearchPage): Promise<SearchResult> {
    let snapshot: IndexSnapshot | null;
    try {
      snapshot = await this.snapshot(blogSlug);
    } catch (err) {
      const cached = this.entries.get(blogSlug);
      if (!(err instanceof StorageError) || !cached) throw err;
      snapshot = cached.snapshot;
    }
    if (!snapshot) return { hits: [], total: 0 };
    return runSearch(snapshot, q, page, this.executor);
  }

  /**
   * The blog's current index, revalidated against the stored manifest; null when it has none.
   * Concurrent searches share one load. A writer passes `fresh`, because a load that started
   * before its previous write would hand it a state that lacks that write.
   */
  async snapshot(blogSlug: string, options: { fresh?: boolean } = {}): Promise<IndexSnapshot | null> {
    if (options.fresh) return this.revalidate(blogSlug);
    return this.loading.load(blogSlug, () => this.revalidate(blogSlug));
  }

  /** Makes a writer's new state current without a store round trip. */
  install(blogSlug: string, snapshot: IndexSnapshot | null): void {
    this.bumpEpoch(blogSlug);
    if (!snapshot) {
      this.evict(blogSlug);
      return;
    }
    this.put(blogSlug, { snapshot, etag: undefined });
  }

  evict(blogSlug: string): void {
    const entry = this.entries.get(blogSlug);
    if (!entry) return;
    this.entries.delete(blogSlug);
    this.bytes -= entry.snapshot.estimatedBytes;
  }

  /**
   * Drops every blog's index (a server at rest, warmup/rest.ts); returns the estimated bytes
   * let go. The next query of a blog loads its index again, as after a restart.
   */
  release(): number {
    const released = this.bytes;
    for (const blogSlug of [...this.entries.keys()]) this.evict(blogSlug);
    return released;
  }

  /**
   * Loads the blog's index ahead of its first query (the warm-up after a restart)
   * if it fits in what the budget leaves, as the least recently used entry: warming never
   * evicts anything, and blogs warmed in most-recent-first order end in their old order.
   * Returns whether the index is in memory now.
   */
  async warm(blogSlug: string): Promise<boolean> {
    if (this.entries.has(blogSlug)) return true;
    const epoch = this.epochs.get(blogSlug) ?? 0;
    const key = manifestKey(blogSlug);
    const object = await this.store.get(key);
    if (!object) return false;
    const snapshot = await this.load(blogSlug, parseManifest(key, object.body), undefined);
    // A query or a writer got there first: theirs is as new or newer.
    if (this.entries.has(blogSlug) || (this.epochs.get(blogSlug) ?? 0) !== epoch) return true;
    if (this.bytes + snapshot.estimatedBytes > this.maxBytes) return false;
    const newer = [...this.entries];
    this.entries.clear();
    this.entries.set(blogSlug, { snapshot, etag: object.etag });
    for (const [blog, entry] of newer) this.entries.set(blog, entry);
    this.bytes += snapshot.estimatedBytes;
    return true;
  }

  /** Estimated bytes held, and by which blogs (least recently used first). */
  stats(): { bytes: number; blogs: string[] } {
    return { bytes: this.bytes, blogs: [...this.entries.keys()] };
  }

  private async revalidate(blogSlug: string): Promise<IndexSnapshot | null> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.revalidateOnce(blogSlug);
      } catch (err) {
        if (!(err instanceof SegmentGoneError) || attempt >= LOAD_ATTEMPTS) throw err;
      }
    }
  }

  private bumpEpoch(blogSlug: string): number {
    const epoch = (this.epochs.get(blogSlug) ?? 0) + 1;
    this.epochs.set(blogSlug, epoch);
    return epoch;
  }

  private async revalidateOnce(blogSlug: string): Promise<IndexSnapshot | null> {
    // A load that finishes after a writer installed a newer state must not replace it.
    const epoch = this.epochs.get(blogSlug) ?? 0;
    const current = (): boolean => (this.epochs.get(blogSlug) ?? 0) === epoch;
    const key = manifestKey(blogSlug);
    const object = await this.store.get(key);
    if (!object) {
      if (current()) this.evict(blogSlug);
      return null;
    }
    const entry = this.entries.get(blogSlug);
    if (entry && entry.etag === object.etag) {
      this.touch(blogSlug, entry);
      return entry.snapshot;
    }
    const manifest = parseManifest(key, object.body);
    if (entry && entry.snapshot.manifest.revision === manifest.revision) {
      entry.etag = object.etag;
      this.touch(blogSlug, entry);
      return entry.snapshot;
    }
    const snapshot = await this.load(blogSlug, manifest, entry?.snapshot);
    if (current()) this.put(blogSlug, { snapshot, etag: object.etag });
    return snapshot;
  }

  /** Builds the snapshot of `manifest`, reusing segments the previous snapshot had loaded. */
  private async load(blogSlug: string, manifest: Manifest, previous: IndexSnapshot | undefined): Promise<IndexSnapshot> {
    const known = new Map(previous?.views.map((v) => [v.segment.id, v.segment]));
    const segments = await Promise.all(manifest.segments.map(async (entry) => known.get(entry.id) ?? (await this.fetchSegment(blogSlug, entry))));
    const views = segments.map((segment, i) => SegmentView.of(segment, manifest.segments[i]!.deleted));
    return new IndexSnapshot(manifest, views);
  }

  /** The snapshot held for the blog, as it is (not revalidated, not marked used); undefined when none. */
  peek(blogSlug: string): IndexSnapshot | undefined {
    return this.entries.get(blogSlug)?.snapshot;
  }

  private async fetchSegment(blogSlug: string, entry: SegmentEntry): Promise<LoadedSegment> {
    const segment = await this.openSegment(blogSlug, entry);
    if (!segment) throw new SegmentGoneError(`${segmentKey(blogSlug, entry)} is listed in the manifest but missing`);
    return segment;
  }

  /** Opens one segment of the blog's index; null when the store no longer has it. */
  async openSegment(blogSlug: string, entry: SegmentEntry): Promise<LoadedSegment | null> {
    const key = segmentKey(blogSlug, entry);
    const object = await this.store.get(key);
    if (!object) return null;
    // A version 3 segment opens in place, reading only its term list and two numbers per
    // document (loadedSegment.ts); an older one is decoded whole.
    if (entry.format !== 3) return LoadedSegment.fromData(entry.id, await this.decode(key, object.body));
    if (segmentVersion(key, object.body) !== SEGMENT_FORMAT_VERSION)
      throw new SearchIndexFormatError(key, 'segment is not in the format its manifest entry names');
    return LoadedSegment.fromStored(entry.id, new StoredSegment(key, object.body));
  }

  private put(blogSlug: string, entry: Entry): void {
    this.evict(blogSlug);
    this.entries.set(blogSlug, entry);
    this.bytes += entry.snapshot.estimatedBytes;
    // The blog just used stays even alone over budget: it is needed to answer this query.
    for (const [other, victim] of this.entries) {
      if (this.bytes <= this.maxBytes || other === blogSlug) break;
      this.entries.delete(other);
      this.bytes -= victim.snapshot.estimatedBytes;
    }
  }

  private touch(blogSlug: string, entry: Entry): void {
    // Map iteration follows insertion order, so re-inserting marks the entry most recent.
    this.entries.delete(blogSlug);
    this.entries.set(blogSlug, entry);
  }
}
