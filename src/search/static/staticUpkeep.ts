/**
 * The upkeep writes leave due in a static index (StaticIndexChange.due): merging a delta grown
 * past deltaMax posts into the term chunks, or compacting once the dead or the blog's growth
 * call for a fresh layout. Both rewrite most term chunks, so the caller runs them in the
 * background, never in a publish. Amortised over the writes that made it necessary, a compaction
 * is a constant cost per write.
 */
import type { FragmentEdits } from './fragmentEdits.js';
import { compactionDue, type StaticIndexChange, type StaticIndexFiles } from './staticIndexFiles.js';
import { liveLayout } from './staticLayout.js';
import { chunkKey, chunkOf, decodePostings, deltaChunksOf, deltaFull, deltaKey, type ChunkFile, type StaticState } from './staticFormat.js';

/** Does the upkeep due for `state`: a compaction, else a delta merge. Null when none is due. */
export async function maintainIndex(
  files: StaticIndexFiles,
  blogSlug: string,
  state: StaticState,
  fragments: FragmentEdits,
): Promise<StaticIndexChange | null> {
  if (compactionDue(state)) return compact(files, blogSlug, state, fragments);
  if (!deltaFull(state)) return null;
  return files.finish(blogSlug, state, fragments, await mergeDelta(files, blogSlug, state));
}

/** Moves the delta's postings into the term chunks; the delta files go. */
async function mergeDelta(files: StaticIndexFiles, blogSlug: string, state: StaticState): Promise<StaticIndexChange> {
  const merged = new Map<string, number[]>();
  for (let chunk = 0; chunk < deltaChunksOf(state); chunk++) {
    for (const [term, gaps] of Object.entries((await files.readJson<ChunkFile>(deltaKey(blogSlug, chunk))) ?? {})) merged.set(term, decodePostings(gaps));
  }
  // The delta's own ordinals are dropped from the chunks before its postings are appended, so a
  // merge cut short (a crash before meta.json) and run again leaves each posting once.
  const dead = new Set(state.dead);
  const drop = { existing: new Set([...state.dead, ...state.delta]), added: dead };
  const written = await files.rewrite([...merged], (term) => chunkKey(blogSlug, chunkOf(term, state.chunks)), drop);
  state.delta = [];
  // Only now, with their postings in the chunks: a reader of the old meta.json that finds a
  // delta file gone just misses the newest posts until it reloads.
  const deleted = await files.store.list(`${blogSlug}/search/x/`);
  await files.store.deleteMany(deleted);
  return { written, deleted };
}

/** Reads the whole index back, drops the dead and lays the live posts out afresh. */
async function compact(files: StaticIndexFiles, blogSlug: string, state: StaticState, fragments: FragmentEdits): Promise<StaticIndexChange> {
  const live = await liveLayout(blogSlug, state, fragments, (key) => files.readJson<ChunkFile>(key));
  return files.writeLayout(blogSlug, live.docs, live.terms, live.postings);
}
