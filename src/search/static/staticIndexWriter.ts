/**
 * Writes a blog's static search index (staticFormat.ts) as its posts change.
 *
 * - `upsert` gives each new or edited post a fresh ordinal (an edited post's old ordinal becomes
 *   dead) and indexes it in the delta: it rewrites the delta chunks its terms hash to (small:
 *   they hold about DELTA_MAX posts), the fragment that holds it, then meta.json. A publish
 *   costs the delta's size, whatever the blog's.
 * - `maintain` does what writes leave due (`StaticIndexChange.due`): merging a delta of more
 *   than DELTA_MAX posts into the term chunks, or compacting. Both rewrite most term chunks (about
 *   8 s at 10,000 posts), so the caller runs them in the background, never in a publish.
 * - `remove` rewrites only the post's fragment and meta.json: its postings stay in their chunks
 *   and the browser skips them by the dead list.
 * - Once the dead are more than a quarter of the live posts, or the blog has grown four times
 *   past the chunk count chosen for it, a compaction is due: it reads every chunk and fragment,
 *   renumbers the live posts and writes a fresh layout. Amortised over the writes that made it
 *   necessary, that is a constant cost per write.
 * - `rebuild` lays out the given posts afresh (oldest first), as a compaction does.
 *
 * Writes to one blog are serialised. Files are written before meta.json, which names the layout;
 * a reader that fetched the old meta.json during a write sees at worst a post that was just
 * removed or not yet added.
 */
import { randomBytes } from 'node:crypto';
import type { SiteStore } from '../../storage/siteStore.js';
import { buildSegmentData, type SegmentData } from '../segmentData.js';
import { buildSegments, type ParallelBuildOptions } from '../parallelBuild.js';
import { putMany } from '../../storage/putMany.js';
import { KeyedQueue } from '../../lib/keyedQueue.js';
import { lazyPostingsOf, postingsOf, serialiseChunk, type PostingList } from './postingLists.js';
import type { ListedDocument, SearchDocument } from '../searchTypes.js';
import { FragmentEdits } from './fragmentEdits.js';
import { readableMeta } from './staticQuery.js';
import { entryOf, idsOf, inOrder, laidOutDocs, layoutFiles, liveLayout, oldestFirst, totalLength, type LaidOutDoc } from './staticLayout.js';
import {
  chunkKey,
  DELTA_CHUNKS,
  DELTA_MAX,
  deltaKey,
  chunkOf,
  dataPrefixes,
  decodePostings,
  FRAGMENT_SIZE,
  liveCount,
  metaKey,
  ordinalOfId,
  POSTING_STRIDE,
  storedState,
  STATIC_FORMAT,
  STATIC_FORMAT_VERSION,
  stateKey,
  stateFromStored,
  type ChunkFile,
  type StaticMeta,
  type StaticState,
} from './staticFormat.js';

export interface StaticIndexOptions {
  /** Cache-Control of the public files: they change in place, so as pages (purged by the publisher). */
  cacheControl: string;
  /** Indexes documents; the server hands this to worker threads, as for the API's index. */
  buildSegment?: (blogSlug: string, docs: SearchDocument[]) => Promise<SegmentData>;
  /** How a rebuild spreads the indexing over worker threads (as the API's index rebuilds). */
  parallel?: ParallelBuildOptions;
}

/** What a write changed: the keys the CDN must forget, and the upkeep it left due. */
export interface StaticIndexChange {
  written: string[];
  deleted: string[];
  /** Call `maintain` (in the background): a delta merge or a compaction is due. */
  due?: boolean;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const PRIVATE_CACHE = 'private, no-store';

export class StaticIndexWriter {
  /** Writes and upkeep of one blog, one at a time. */
  private readonly locks = new KeyedQueue();
  /**
   * The state each blog's last write committed. The state names every live post (2 MB at 50,000
   * posts): reading and parsing it again was a fifth of a publish in a large blog. It is used
   * while meta.json still carries its revision, so a write by another process (the CLI) is seen.
   */
  private readonly states = new Map<string, StaticState>();

  constructor(
    private readonly store: SiteStore,
    private readonly options: StaticIndexOptions,
  ) {}

  /** Reads and keeps the blog's state ahead of its first write (the warm-up after a restart). */
  warm(blogSlug: string): Promise<void> {
    return this.locked(blogSlug, async () => {
      if (this.states.has(blogSlug)) return;
      const state = await this.readState(blogSlug);
      // A state written before revisions cannot be checked against meta.json: its first write gives it one.
      if (state?.revision !== undefined) this.states.set(blogSlug, state);
    });
  }

  /**
   * Whether the blog has a static index of this format. An upgrade from before it has none, and
   * one of an older format cannot be read by the new page script: both are rebuilt
   * (StaticSearchSync.ensure, run by the re-render every upgrade of the page script queues).
   */
  async exists(blogSlug: string): Promise<boolean> {
    const meta = await this.readJson<unknown>(metaKey(blogSlug));
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
   * instead of indexing every post a second time (9 s of a 50,000-post reindex): the posts come
   * without their text, which the caller can then let go. Null, and nothing written, when the
   * segments do not hold the posts in this layout's order: `rebuild` them instead.
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
    return this.writeLayout(blogSlug, laidOut, terms, postings);
  }

  /**
   * The CPU side of an upsert of these documents, with nothing read or written: their postings,
   * a chunk file made of them, read back as a rewrite reads one. The warm-up's dry run.
   */
  async rehearse(docs: readonly SearchDocument[]): Promise<void> {
    const data = await this.build('', docs);
    const file: Record<string, number[]> = {};
    for (const [term, list] of postingsOf(data, docs.map((_, i) => i))) file[term] = list;
    const stored = JSON.parse(serialiseChunk(file)) as ChunkFile;
    for (const term of Object.keys(stored)) decodePostings(stored[term]!);
    for (const [i, doc] of docs.entries()) entryOf(doc, data.docs.lengths[i]!);
  }

  /** Adds or replaces posts. Returns null when the blog has no index yet: rebuild it instead. */
  upsert(blogSlug: string, docs: readonly SearchDocument[]): Promise<StaticIndexChange | null> {
    return this.locked(blogSlug, async () => {
      const state = await this.readState(blogSlug);
      if (!state) return null;
      const fragments = new FragmentEdits(this.store, blogSlug);
      for (const doc of docs) await this.kill(state, doc.id, fragments);
      const ordinals = docs.map((doc) => state.ids.push(doc.id));
      state.next = state.ids.length;
      const data = await this.build(blogSlug, docs);
      for (const [i, doc] of docs.entries()) {
        const length = data.docs.lengths[i]!;
        (await fragments.of(ordinals[i]!))[ordinals[i]!] = entryOf(doc, length);
        state.length += length;
      }

      const additions = [...postingsOf(data, ordinals)];
      // A new delta is written whole: meta.json will name all its files, and the browser asks
      // for whichever its words hash to (a missing one would be a 404 in its console).
      const newDelta = state.delta.length === 0 ? Array.from({ length: DELTA_CHUNKS }, (_, chunk) => deltaKey(blogSlug, chunk)) : [];
      state.delta.push(...ordinals);
      const dead = new Set(state.dead);
      const written = await this.rewrite(additions, (term) => deltaKey(blogSlug, chunkOf(term, DELTA_CHUNKS)), { existing: dead, added: dead }, newDelta);
      return this.finish(blogSlug, state, fragments, { written, deleted: [] });
    });
  }

  /** Removes posts. Returns null when the blog has no index yet. */
  remove(blogSlug: string, ids: readonly string[]): Promise<StaticIndexChange | null> {
    return this.locked(blogSlug, async () => {
      const state = await this.readState(blogSlug);
      if (!state) return null;
      const fragments = new FragmentEdits(this.store, blogSlug);
      for (const id of ids) await this.kill(state, id, fragments);
      return this.finish(blogSlug, state, fragments, { written: [], deleted: [] });
    });
  }

  /**
   * Adds postings to the files `fileOf` assigns their terms to, shedding the dead from every
   * file it rewrites (they never come back, so nothing else needs them); `alsoWrite` are written
   * even without an addition. Returns the keys written.
   */
  private async rewrite(
    additions: readonly [string, number[]][],
    fileOf: (term: string) => string,
    drop: { existing: ReadonlySet<number>; added: ReadonlySet<number> },
    alsoWrite: readonly string[] = [],
  ): Promise<string[]> {
    const byFile = new Map<string, [string, number[]][]>(alsoWrite.map((key) => [key, []]));
    for (const addition of additions) {
      const key = fileOf(addition[0]);
      let list = byFile.get(key);
      if (!list) byFile.set(key, (list = []));
      list.push(addition);
    }
    const written: string[] = [];
    for (const [key, terms] of [...byFile].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      const file = (await this.readJson<ChunkFile>(key)) ?? {};
      for (const term of Object.keys(file)) file[term] = withoutDead(decodePostings(file[term]!), drop.existing);
      // Ordinals only grow, so appending keeps every list sorted.
      for (const [term, list] of terms) file[term] = [...(file[term] ?? []), ...withoutDead(list, drop.added)];
      await this.putPublic(key, serialiseChunk(file));
      written.push(key);
    }
    return written;
  }

  /** Does the upkeep writes left due: a compaction, else a delta merge. Null when none is due. */
  maintain(blogSlug: string): Promise<StaticIndexChange | null> {
    return this.locked(blogSlug, async () => {
      const state = await this.readState(blogSlug);
      if (!state) return null;
      const fragments = new FragmentEdits(this.store, blogSlug);
      if (compactionDue(state)) return this.compact(blogSlug, state, fragments);
      if (state.delta.length <= DELTA_MAX) return null;
      return this.finish(blogSlug, state, fragments, await this.mergeDelta(blogSlug, state));
    });
  }

  /** Moves the delta's postings into the term chunks; the delta files go. */
  private async mergeDelta(blogSlug: string, state: StaticState): Promise<StaticIndexChange> {
    const merged = new Map<string, number[]>();
    for (let chunk = 0; chunk < DELTA_CHUNKS; chunk++) {
      for (const [term, gaps] of Object.entries((await this.readJson<ChunkFile>(deltaKey(blogSlug, chunk))) ?? {})) merged.set(term, decodePostings(gaps));
    }
    // The delta's own ordinals are dropped from the chunks before its postings are appended, so a
    // merge cut short (a crash before meta.json) and run again leaves each posting once.
    const dead = new Set(state.dead);
    const drop = { existing: new Set([...state.dead, ...state.delta]), added: dead };
    const written = await this.rewrite([...merged], (term) => chunkKey(blogSlug, chunkOf(term, state.chunks)), drop);
    state.delta = [];
    // Only now, with their postings in the chunks: a reader of the old meta.json that finds a
    // delta file gone just misses the newest posts until it reloads.
    const deleted = await this.store.list(`${blogSlug}/search/x/`);
    await this.store.deleteMany(deleted);
    return { written, deleted };
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

  /** Writes the edited fragments, then meta.json and the state; compacts when it is time. */
  private async finish(blogSlug: string, state: StaticState, fragments: FragmentEdits, change: StaticIndexChange): Promise<StaticIndexChange> {
    const written = [...change.written];
    const deleted = [...change.deleted];
    for (const [key, file] of fragments.edited()) {
      if (Object.keys(file).length === 0) {
        await this.store.delete(key);
        deleted.push(key);
      } else {
        await this.putPublic(key, JSON.stringify(file));
        written.push(key);
      }
    }
    written.push(await this.commit(blogSlug, state));
    return { written, deleted, due: compactionDue(state) || state.delta.length > DELTA_MAX };
  }

  /** Reads the whole index back, drops the dead and lays the live posts out afresh. */
  private async compact(blogSlug: string, state: StaticState, fragments: FragmentEdits): Promise<StaticIndexChange> {
    const live = await liveLayout(blogSlug, state, fragments, (key) => this.readJson<ChunkFile>(key));
    return this.writeLayout(blogSlug, live.docs, live.terms, live.postings);
  }

  /** Writes a complete layout, deletes what the previous one had beyond it, then commits. */
  private async writeLayout(
    blogSlug: string,
    docs: readonly LaidOutDoc[],
    terms: Iterable<[string, PostingList]>,
    postings: number,
  ): Promise<StaticIndexChange> {
    const { chunks, keys, objects } = await layoutFiles(blogSlug, docs, terms, postings);
    await putMany(this.store, objects, { contentType: JSON_TYPE, cacheControl: this.options.cacheControl });
    const state: StaticState = {
      version: STATIC_FORMAT_VERSION,
      chunks,
      next: docs.length,
      laidOutFor: docs.length,
      ids: idsOf(docs),
      dead: [],
      delta: [],
      length: totalLength(docs),
    };
    const written = [...keys, await this.commit(blogSlug, state)];
    const keep = new Set(written);
    const deleted: string[] = [];
    for (const prefix of dataPrefixes(blogSlug)) for (const key of await this.store.list(prefix)) if (!keep.has(key)) deleted.push(key);
    await this.store.deleteMany(deleted);
    return { written, deleted };
  }

  private async commit(blogSlug: string, state: StaticState): Promise<string> {
    state.dead.sort((a, b) => a - b);
    state.revision = randomBytes(8).toString('hex');
    const meta: StaticMeta = {
      format: STATIC_FORMAT,
      version: STATIC_FORMAT_VERSION,
      chunks: state.chunks,
      fragment: FRAGMENT_SIZE,
      delta: state.delta.length > 0 ? DELTA_CHUNKS : 0,
      docs: liveCount(state),
      length: state.length,
      dead: state.dead,
      revision: state.revision,
    };
    await this.putPublic(metaKey(blogSlug), JSON.stringify(meta));
    await this.store.put(stateKey(blogSlug), JSON.stringify(storedState(state)), { contentType: JSON_TYPE, cacheControl: PRIVATE_CACHE });
    this.states.set(blogSlug, state);
    return metaKey(blogSlug);
  }

  private async readState(blogSlug: string): Promise<StaticState | null> {
    // Taken out while a write edits it in place: it is kept again only once committed.
    const kept = this.states.get(blogSlug);
    this.states.delete(blogSlug);
    if (kept?.revision !== undefined && (await this.readJson<StaticMeta>(metaKey(blogSlug)))?.revision === kept.revision) return kept;
    // Another format is rebuilt, as a missing index is.
    return stateFromStored(await this.readJson<unknown>(stateKey(blogSlug)), STATIC_FORMAT_VERSION);
  }

  private async readJson<T>(key: string): Promise<T | null> {
    const body = await this.store.getBody(key);
    return body ? (JSON.parse(body.toString('utf8')) as T) : null;
  }

  private putPublic(key: string, body: string): Promise<void> {
    return this.store.put(key, body, { contentType: JSON_TYPE, cacheControl: this.options.cacheControl });
  }

  private build(blogSlug: string, docs: readonly SearchDocument[]): Promise<SegmentData> {
    return this.options.buildSegment ? this.options.buildSegment(blogSlug, [...docs]) : Promise.resolve(buildSegmentData(docs));
  }

  /** Resolves once no write or upkeep of any blog is running or queued. */
  async idle(): Promise<void> {
    await this.locks.idle();
  }

  private locked<T>(blogSlug: string, work: () => Promise<T>): Promise<T> {
    return this.locks.run(blogSlug, work);
  }
}

/** Dead posts past a quarter of the live ones, or a blog grown four times past its layout. */
function compactionDue(state: StaticState): boolean {
  const live = liveCount(state);
  return state.dead.length > Math.max(64, live / 4) || live > 4 * Math.max(state.laidOutFor, 256);
}

function withoutDead(list: number[], dead: ReadonlySet<number>): number[] {
  if (dead.size === 0) return list;
  const kept: number[] = [];
  for (let i = 0; i < list.length; i += POSTING_STRIDE) if (!dead.has(list[i]!)) kept.push(list[i]!, list[i + 1]!, list[i + 2]!);
  return kept;
}
