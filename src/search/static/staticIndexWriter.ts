/**
 * Writes a blog's static search index (staticFormat.ts) as its posts change.
 *
 * - `upsert` gives each new or edited post a fresh ordinal (an edited post's old ordinal becomes
 *   dead) and indexes it in the delta: it rewrites the delta chunks its terms hash to (small:
 *   they hold at most deltaMax posts), the lengths file and the fragment that hold it, then
 *   meta.json. A publish
 *   costs the delta's size, whatever the blog's.
 * - `remove` rewrites only the post's fragment and meta.json: its postings stay in their chunks
 *   and the browser skips them by the dead list.
 * - `maintain` does what writes leave due (`StaticIndexChange.due`): a delta merge or a
 *   compaction (staticUpkeep.ts), which the caller runs in the background.
 * - `rebuild` lays out the given posts afresh (oldest first), as a compaction does.
 *
 * Writes to one blog are serialised. Files are written before meta.json, which names the layout
 * (staticIndexFiles.ts); a reader that fetched the old meta.json during a write sees at worst a
 * post that was just removed or not yet added.
 */
import { KeyedQueue } from '../../lib/keyedQueue.js';
import type { SiteStore } from '../../storage/siteStore.js';
import { buildSegmentData, type SegmentData } from '../segmentData.js';
import { buildSegments, type ParallelBuildOptions } from '../parallelBuild.js';
import { lazyPostingsOf, postingsOf, serialiseChunk } from './postingLists.js';
import type { ListedDocument, SearchDocument } from '../searchTypes.js';
import type { ChunkRewrite } from './chunkRewrite.js';
import { FragmentEdits } from './fragmentEdits.js';
import { readableMeta } from './staticQuery.js';
import { StaticIndexFiles, type StaticIndexChange } from './staticIndexFiles.js';
import { entryOf, inOrder, laidOutDocs, oldestFirst } from './staticLayout.js';
import { maintainIndex } from './staticUpkeep.js';
import {
  chunkOf,
  deltaChunksFor,
  deltaChunksOf,
  deltaKey,
  decodePostings,
  metaKey,
  ordinalOfId,
  stateKey,
  type ChunkFile,
  type StaticState,
} from './staticFormat.js';

export type { StaticIndexChange };

export interface StaticIndexOptions {
  /** Cache-Control of the public files: they change in place, so as pages (purged by the publisher). */
  cacheControl: string;
  /** Indexes documents; the server hands this to worker threads, as for the API's index. */
  buildSegment?: (blogSlug: string, docs: SearchDocument[]) => Promise<SegmentData>;
  /** How a rebuild spreads the indexing over worker threads (as the API's index rebuilds). */
  parallel?: ParallelBuildOptions;
  /** Rewrites a chunk of a delta merge; the server hands this to worker threads too (chunkRewrite.ts). */
  rewriteChunk?: (key: string, request: ChunkRewrite) => Promise<string>;
  /** Told when a merge's chunks have all been rewritten by rewriteChunk. */
  rewritesDone?: () => void;
}

export class StaticIndexWriter {
  /** Writes and upkeep of one blog, one at a time. */
  private readonly locks = new KeyedQueue();
  private readonly files: StaticIndexFiles;

  constructor(
    private readonly store: SiteStore,
    private readonly options: StaticIndexOptions,
  ) {
    this.files = new StaticIndexFiles({ store, cacheControl: options.cacheControl, rewriteChunk: options.rewriteChunk, rewritesDone: options.rewritesDone });
  }

  /** Reads and keeps the blog's state ahead of its first write (the warm-up after a restart). */
  warm(blogSlug: string): Promise<void> {
    return this.locked(blogSlug, async () => {
      if (this.files.holds(blogSlug)) return;
      const state = await this.files.readState(blogSlug);
      // A state written before revisions cannot be checked against meta.json: its first write gives it one.
      if (state?.revision !== undefined) this.files.keep(blogSlug, state);
    });
  }

  /** Lets go of the states kept between writes (a server at rest); returns how many. */
  release(): number {
    return this.files.release();
  }

  /**
   * Whether the blog has a static index of this format. An upgrade from before it has none, and
   * one of an older format cannot be read by the new page script: both are rebuilt
   * (StaticSearchSync.ensure, run by the re-render every upgrade of the page script queues).
   */
  async exists(blogSlug: string): Promise<boolean> {
    const meta = await this.files.readJson<unknown>(metaKey(blogSlug));
    return readableMeta(meta) && (await this.store.getBody(stateKey(blogSlug))) !== null;
  }

  /** Lays out every given post afresh, indexing their text. */
  rebuild(blogSlug: string, docs: readonly SearchDocument[]): Promise<StaticIndexChange> {
    return this.locked(blogSlug, async () => {
      const sorted = [...docs].sort(oldestFirst);
      return this.layOut(blogSlug, sorted, await buildSegments([sorted], this.options.parallel));
    });
  }

  /**
   * Lays out the posts afresh from the API index's segments of them (SearchIndexWriter.rebuildFrom)
   * instead of indexing every post a second time: the posts come without their text, which the
   * caller can then let go. Null, and nothing written, when the segments do not hold the posts in
   * this layout's order: `rebuild` them instead.
   */
  rebuildFromSegments(blogSlug: string, docs: readonly ListedDocument[], built: readonly SegmentData[]): Promise<StaticIndexChange | null> {
    return this.locked(blogSlug, async () => {
      const sorted = [...docs].sort(oldestFirst);
      if (!inOrder(built, sorted)) return null;
      return this.layOut(blogSlug, sorted, built);
    });
  }

  /** `segments` hold the `sorted` posts in their order: ordinal i is the i-th post of them all. */
  private async layOut(blogSlug: string, sorted: readonly ListedDocument[], segments: readonly SegmentData[]): Promise<StaticIndexChange> {
    const laidOut = await laidOutDocs(sorted, segments);
    const { terms, postings } = await lazyPostingsOf(segments);
    return this.files.writeLayout(blogSlug, laidOut, terms, postings);
  }

  /**
   * The CPU side of an upsert of these documents, with nothing read or written: their postings,
   * a chunk file made of them, read back as a rewrite reads one. The warm-up's dry run.
   */
  async rehearse(docs: readonly SearchDocument[]): Promise<void> {
    const data = await this.build('', docs);
    const file: Record<string, number[]> = {};
    for (const [term, list] of postingsOf(
      data,
      docs.map((_, i) => i),
    ))
      file[term] = list;
    const stored = JSON.parse(serialiseChunk(file)) as ChunkFile;
    for (const term of Object.keys(stored)) decodePostings(stored[term]!);
    for (const [i, doc] of docs.entries()) entryOf(doc, data.docs.lengths[i]!);
  }

  /** Adds or replaces posts. Returns null when the blog has no index yet: rebuild it instead. */
  upsert(blogSlug: string, docs: readonly SearchDocument[]): Promise<StaticIndexChange | null> {
    return this.locked(blogSlug, async () => {
      const state = await this.files.readState(blogSlug);
      if (!state) return null;
      const fragments = new FragmentEdits(this.store, blogSlug);
      for (const doc of docs) await this.kill(state, doc.id, fragments);
      const ordinals = docs.map((doc) => state.ids.push(doc.id));
      state.next = state.ids.length;
      const data = await this.build(blogSlug, docs);
      const lengths = new Map<number, number>();
      for (const [i, doc] of docs.entries()) {
        const length = data.docs.lengths[i]!;
        (await fragments.of(ordinals[i]!))[ordinals[i]!] = entryOf(doc, length);
        lengths.set(ordinals[i]!, length);
        state.length += length;
      }

      const additions = [...postingsOf(data, ordinals)];
      // A new delta is written whole: meta.json will name all its files, and the browser asks
      // for whichever its words hash to (a missing one would be a 404 in its console).
      if (state.delta.length === 0) state.deltaChunks = deltaChunksFor(state.chunks);
      const files = deltaChunksOf(state);
      const newDelta = state.delta.length === 0 ? Array.from({ length: files }, (_, chunk) => deltaKey(blogSlug, chunk)) : [];
      state.delta.push(...ordinals);
      const dead = new Set(state.dead);
      // A new delta starts from nothing: what the state held was the merged one's.
      if (newDelta.length > 0 || !state.deltaFiles) state.deltaFiles = new Map();
      // Before the postings that name them: a reader never scores a post whose length is missing.
      state.lengthFiles ??= new Map();
      const written = await this.files.writeLengths(blogSlug, lengths, state.lengthFiles);
      written.push(
        ...(await this.files.rewrite(
          additions,
          (term) => deltaKey(blogSlug, chunkOf(term, files)),
          { existing: dead, added: dead },
          newDelta,
          state.deltaFiles,
        )),
      );
      return this.files.finish(blogSlug, state, fragments, { written, deleted: [] });
    });
  }

  /** Removes posts. Returns null when the blog has no index yet. */
  remove(blogSlug: string, ids: readonly string[]): Promise<StaticIndexChange | null> {
    return this.locked(blogSlug, async () => {
      const state = await this.files.readState(blogSlug);
      if (!state) return null;
      const fragments = new FragmentEdits(this.store, blogSlug);
      for (const id of ids) await this.kill(state, id, fragments);
      return this.files.finish(blogSlug, state, fragments, { written: [], deleted: [] });
    });
  }

  /** Does the upkeep writes left due: a compaction, else a delta merge. Null when none is due. */
  maintain(blogSlug: string): Promise<StaticIndexChange | null> {
    return this.locked(blogSlug, async () => {
      const state = await this.files.readState(blogSlug);
      if (!state) return null;
      return maintainIndex(this.files, blogSlug, state, new FragmentEdits(this.store, blogSlug));
    });
  }

  /** Resolves once no write or upkeep of any blog is running or queued. */
  async idle(): Promise<void> {
    await this.locks.idle();
  }

  private async kill(state: StaticState, id: string, fragments: FragmentEdits): Promise<void> {
    const ordinal = ordinalOfId(state, id);
    if (ordinal < 0) return;
    state.dead.push(ordinal);
    state.ids.clear(ordinal);
    const fragment = await fragments.of(ordinal);
    // Its length leaves the average with it, as in the API's index.
    state.length -= fragment[ordinal]?.[6] ?? 0;
    delete fragment[ordinal];
  }

  private build(blogSlug: string, docs: readonly SearchDocument[]): Promise<SegmentData> {
    return this.options.buildSegment ? this.options.buildSegment(blogSlug, [...docs]) : Promise.resolve(buildSegmentData(docs));
  }

  private locked<T>(blogSlug: string, work: () => Promise<T>): Promise<T> {
    return this.locks.run(blogSlug, work);
  }
}
