/**
 * The stored files of a blog's static search index as its writes read and commit them
 * (StaticIndexWriter for the writes, staticUpkeep.ts for delta merges and compactions). Files
 * are written before meta.json, which names the layout; the private state is written last.
 */
import { randomBytes } from 'node:crypto';
import type { SiteStore } from '../../storage/siteStore.js';
import { putMany } from '../../storage/putMany.js';
import { forEachConcurrently } from '../../lib/concurrently.js';
import { serialiseChunk, type PostingList } from './postingLists.js';
import type { FragmentEdits } from './fragmentEdits.js';
import { applyRewrite, decodeChunk, type ChunkRewrite } from './chunkRewrite.js';
import { idsOf, layoutFiles, totalLength, type LaidOutDoc } from './staticLayout.js';
import { readIdBlocks, storeIdBlocks, sweepIdBlocks } from './staticIdBlocks.js';
import {
  deltaChunksOf,
  deltaFull,
  dataPrefixes,
  idBlockTagsOf,
  FRAGMENT_SIZE,
  LENGTH_BLOCK,
  lengthKey,
  liveCount,
  metaKey,
  storedState,
  STATIC_FORMAT,
  STATIC_FORMAT_VERSION,
  stateKey,
  stateFromStored,
  type ChunkFile,
  type LengthFile,
  type StaticMeta,
  type StaticState,
} from './staticFormat.js';

/** What a write changed: the keys the CDN must forget, and the upkeep it left due. */
export interface StaticIndexChange {
  written: string[];
  deleted: string[];
  /** Call `maintain` (in the background): a delta merge or a compaction is due. */
  due?: boolean;
}

export interface StaticIndexFilesDeps {
  store: SiteStore;
  /** Cache-Control of the public files: they change in place, so as pages (purged by the publisher). */
  cacheControl: string;
  /** Rewrites a chunk (chunkRewrite.ts) off the event loop; without it, a merge rewrites in place. */
  rewriteChunk?: ((key: string, request: ChunkRewrite) => Promise<string>) | undefined;
  /** Told when a merge's chunks have all been rewritten by rewriteChunk. */
  rewritesDone?: (() => void) | undefined;
}

const JSON_TYPE = 'application/json; charset=utf-8';
/**
 * Data files (chunks, delta, fragments) of one write in flight at once. They are written
 * without a flush each and made durable by one store flush before anything names them: a
 * publish at 10,000 posts spent most of its index step waiting on a flush per file, one after
 * another.
 */
const WRITE_CONCURRENCY = 8;
const PRIVATE_CACHE = 'private, no-store';
/** States kept, most recently written last: each names every post of its blog (docs/operations.md#memory). */
const STATES_KEPT = 16;

export class StaticIndexFiles {
  /**
   * The state each blog's last write committed. It names every live post, so reading and parsing
   * it again would cost a large blog's publish as much as the rest of it. It is used while
   * meta.json still carries its revision, so a write by another process (the CLI) is seen.
   */
  private readonly states = new Map<string, StaticState>();

  constructor(private readonly deps: StaticIndexFilesDeps) {}

  get store(): SiteStore {
    return this.deps.store;
  }

  /** Whether the state of the blog's last write is still held. */
  holds(blogSlug: string): boolean {
    return this.states.has(blogSlug);
  }

  /**
   * Lets go of every kept state (a server at rest); returns how many. A write in flight has taken
   * its blog's out (readState) and keeps it again when it commits.
   */
  release(): number {
    const count = this.states.size;
    this.states.clear();
    return count;
  }

  /** Keeps a state read ahead of the blog's first write (the warm-up after a restart). */
  keep(blogSlug: string, state: StaticState): void {
    this.hold(blogSlug, state);
  }

  /** Keeps the state as the most recent; the least recently written blog's goes past STATES_KEPT (read again on its next write). */
  private hold(blogSlug: string, state: StaticState): void {
    this.states.delete(blogSlug);
    this.states.set(blogSlug, state);
    for (const oldest of this.states.keys()) {
      if (this.states.size <= STATES_KEPT) break;
      this.states.delete(oldest);
    }
  }

  async readState(blogSlug: string): Promise<StaticState | null> {
    // Taken out while a write edits it in place: it is kept again only once committed.
    const kept = this.states.get(blogSlug);
    this.states.delete(blogSlug);
    if (kept?.revision !== undefined && (await this.readJson<StaticMeta>(metaKey(blogSlug)))?.revision === kept.revision) return kept;
    // Another format is rebuilt, as a missing index is.
    const stored = await this.readJson<unknown>(stateKey(blogSlug));
    const tags = idBlockTagsOf(stored);
    if (!tags) return stateFromStored(stored, STATIC_FORMAT_VERSION);
    const blocks = await readIdBlocks(this.deps.store, blogSlug, tags);
    if (!blocks) return null;
    // Blocks a write stored but never committed, or committed without deleting what they replaced.
    await sweepIdBlocks(this.deps.store, blogSlug, tags);
    return stateFromStored(stored, STATIC_FORMAT_VERSION, blocks);
  }

  async readJson<T>(key: string): Promise<T | null> {
    const body = await this.deps.store.getBody(key);
    return body ? (JSON.parse(body.toString('utf8')) as T) : null;
  }

  /**
   * Adds postings to the files `fileOf` assigns their terms to, shedding the dead from every
   * file it rewrites (they never come back, so nothing else needs them); `alsoWrite` are written
   * even without an addition. `held` (the delta's files, StaticState.deltaFiles) serves files
   * decoded instead of reading them and keeps what is written. Returns the keys written.
   */
  async rewrite(
    additions: readonly [string, number[]][],
    fileOf: (term: string) => string,
    drop: { existing: ReadonlySet<number>; added: ReadonlySet<number> },
    alsoWrite: readonly string[] = [],
    held?: Map<string, Record<string, number[]>>,
  ): Promise<string[]> {
    const byFile = new Map<string, [string, number[]][]>(alsoWrite.map((key) => [key, []]));
    for (const addition of additions) {
      const key = fileOf(addition[0]);
      let list = byFile.get(key);
      if (!list) byFile.set(key, (list = []));
      list.push(addition);
    }
    const files = [...byFile].sort((a, b) => (a[0] < b[0] ? -1 : 1));
    const { rewriteChunk } = this.deps;
    // Nothing held (a delta merge, hundreds of chunks): each chunk's CPU goes to the worker pool.
    const onWorkers = !held && rewriteChunk ? { dropExisting: [...drop.existing], dropAdded: [...drop.added] } : null;
    try {
      await forEachConcurrently(files, WRITE_CONCURRENCY, async ([key, terms]) => {
        if (onWorkers) {
          const stored = (await this.deps.store.getBody(key))?.toString('utf8') ?? null;
          await this.putData(key, await rewriteChunk!(key, { stored, additions: terms, ...onWorkers }));
          return;
        }
        const file = held?.get(key) ?? decodeChunk((await this.readJson<ChunkFile>(key)) ?? {});
        // Taken out until written: a failed write drops the state, and with it what it held.
        held?.delete(key);
        await this.putData(key, serialiseChunk(applyRewrite(file, terms, drop)));
        held?.set(key, file);
      });
    } finally {
      // A merge that failed half-way grew the workers' heaps as much as one that ended.
      if (onWorkers) this.deps.rewritesDone?.();
    }
    // Durable before the caller goes on: a merge deletes the delta files next.
    await this.deps.store.flush();
    return files.map(([key]) => key);
  }

  /**
   * Sets the lengths of new ordinals in their lengths files (the last one or two: ordinals are
   * handed out in order). `held` (StaticState.lengthFiles) serves files instead of reading them
   * and keeps what is written. Returns the keys written, durable with the writer's next flush.
   */
  async writeLengths(blogSlug: string, lengths: ReadonlyMap<number, number>, held?: Map<string, LengthFile>): Promise<string[]> {
    const byBlock = new Map<number, [number, number][]>();
    for (const [ordinal, length] of lengths) {
      const block = Math.floor(ordinal / LENGTH_BLOCK);
      let list = byBlock.get(block);
      if (!list) byBlock.set(block, (list = []));
      list.push([ordinal % LENGTH_BLOCK, length]);
    }
    const written: string[] = [];
    for (const [block, entries] of byBlock) {
      const key = lengthKey(blogSlug, block);
      const file = held?.get(key) ?? (await this.readJson<LengthFile>(key)) ?? [];
      // Taken out until written: a failed write drops the state, and with it what it held.
      held?.delete(key);
      // An ordinal never given a length (none is: they are handed out in order) reads as 0.
      for (const [at, length] of entries) {
        while (file.length < at) file.push(0);
        file[at] = length;
      }
      await this.putData(key, JSON.stringify(file));
      held?.set(key, file);
      written.push(key);
    }
    // Only the newest files get new ordinals: older ones are let go.
    if (held) for (const key of [...held.keys()].slice(0, -2)) held.delete(key);
    return written;
  }

  /** Writes the edited fragments, then meta.json and the state; says whether upkeep is due. */
  async finish(blogSlug: string, state: StaticState, fragments: FragmentEdits, change: StaticIndexChange): Promise<StaticIndexChange> {
    const written = [...change.written];
    const deleted = [...change.deleted];
    await forEachConcurrently(fragments.edited(), WRITE_CONCURRENCY, async ([key, file]) => {
      if (Object.keys(file).length === 0) {
        await this.deps.store.delete(key);
        deleted.push(key);
      } else {
        await this.putData(key, JSON.stringify(file));
        written.push(key);
      }
    });
    // Every file meta.json will name is durable before it is written.
    await this.deps.store.flush();
    written.push(await this.commit(blogSlug, state));
    return { written, deleted, due: compactionDue(state) || deltaFull(state) };
  }

  /** Writes a complete layout, deletes what the previous one had beyond it, then commits. */
  async writeLayout(blogSlug: string, docs: readonly LaidOutDoc[], terms: Iterable<[string, PostingList]>, postings: number): Promise<StaticIndexChange> {
    const { store } = this.deps;
    const { chunks, keys, objects } = await layoutFiles(blogSlug, docs, terms, postings);
    await putMany(store, objects, { contentType: JSON_TYPE, cacheControl: this.deps.cacheControl });
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
    for (const prefix of dataPrefixes(blogSlug)) for (const key of await store.list(prefix)) if (!keep.has(key)) deleted.push(key);
    await store.deleteMany(deleted);
    // The previous layout's id blocks (private: no edge holds them, so they are not in `deleted`).
    await sweepIdBlocks(store, blogSlug, state.ids.tags());
    return { written, deleted };
  }

  /**
   * Stores the id blocks the write changed, each under a new name, then meta.json and the state
   * that names them; then deletes the blocks they replace. A write cut short before the state
   * leaves the old blocks named and the new ones unread (readState sweeps them).
   */
  private async commit(blogSlug: string, state: StaticState): Promise<string> {
    const { store } = this.deps;
    state.dead.sort((a, b) => a - b);
    state.revision = randomBytes(8).toString('hex');
    const replaced = await storeIdBlocks(store, blogSlug, state.ids, state.revision);
    const meta: StaticMeta = {
      format: STATIC_FORMAT,
      version: STATIC_FORMAT_VERSION,
      chunks: state.chunks,
      fragment: FRAGMENT_SIZE,
      delta: state.delta.length > 0 ? deltaChunksOf(state) : 0,
      docs: liveCount(state),
      length: state.length,
      dead: state.dead,
      revision: state.revision,
    };
    await this.putPublic(metaKey(blogSlug), JSON.stringify(meta));
    await store.put(stateKey(blogSlug), JSON.stringify(storedState(state)), { contentType: JSON_TYPE, cacheControl: PRIVATE_CACHE });
    this.hold(blogSlug, state);
    // Committed already: a block left behind is only a leftover, which the next read of the state from the store sweeps.
    await store.deleteMany(replaced).catch(() => undefined);
    return metaKey(blogSlug);
  }

  /** A data file, made durable by the writer's next `store.flush()`. */
  private putData(key: string, body: string): Promise<void> {
    return this.deps.store.put(key, body, { contentType: JSON_TYPE, cacheControl: this.deps.cacheControl, deferSync: true });
  }

  private putPublic(key: string, body: string): Promise<void> {
    return this.deps.store.put(key, body, { contentType: JSON_TYPE, cacheControl: this.deps.cacheControl });
  }
}

/** Dead posts past a quarter of the live ones, or a blog grown four times past its layout. */
export function compactionDue(state: StaticState): boolean {
  const live = liveCount(state);
  return state.dead.length > Math.max(64, live / 4) || live > 4 * Math.max(state.laidOutFor, 256);
}
