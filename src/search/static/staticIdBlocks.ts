/**
 * The static index state's id blocks in the store (ordinalIds.ts says why blocks): read for a
 * state, stored under the tag of the write that changed them, and swept of any the state does
 * not name. Private files: never served, never purged at the edge.
 */
import { forEachConcurrently } from '../../lib/concurrently.js';
import type { SiteStore } from '../../storage/siteStore.js';
import type { OrdinalIds } from './ordinalIds.js';
import { idBlockKey, idBlockPrefix } from './staticFormat.js';

const TEXT_TYPE = 'text/plain; charset=utf-8';
const PRIVATE_CACHE = 'private, no-store';
/** Blocks read or written at once. */
const CONCURRENCY = 8;

/** The blocks the tags name, in order; null when one is gone (the API index dropped with everything under _search/). */
export async function readIdBlocks(store: SiteStore, blogSlug: string, tags: readonly string[]): Promise<{ joined: string; tag: string }[] | null> {
  const bodies: (Buffer | null)[] = [];
  await forEachConcurrently([...tags.entries()], CONCURRENCY, async ([block, tag]) => {
    bodies[block] = await store.getBody(idBlockKey(blogSlug, block, tag));
  });
  if (bodies.some((body) => !body)) return null;
  return bodies.map((body, block) => ({ joined: body!.toString('utf8'), tag: tags[block]! }));
}

/**
 * Stores the blocks changed since `ids` were last stored, under `tag`, durable when it resolves.
 * Returns the keys of the blocks they replace, to delete once a state names the new ones.
 */
export async function storeIdBlocks(store: SiteStore, blogSlug: string, ids: OrdinalIds, tag: string): Promise<string[]> {
  const changed = ids.changed();
  await forEachConcurrently(changed, CONCURRENCY, ({ block, joined }) =>
    store.put(idBlockKey(blogSlug, block, tag), joined, { contentType: TEXT_TYPE, cacheControl: PRIVATE_CACHE, deferSync: true }),
  );
  if (changed.length > 0) await store.flush();
  ids.stored(tag);
  return changed.flatMap(({ block, replaces }) => (replaces === null ? [] : [idBlockKey(blogSlug, block, replaces)]));
}

/** Deletes the blog's blocks that `ids` do not name: a layout's predecessors, or what a write cut short left. */
export async function sweepIdBlocks(store: SiteStore, blogSlug: string, tags: readonly (string | null)[]): Promise<void> {
  const named = new Set(tags.map((tag, block) => (tag === null ? '' : idBlockKey(blogSlug, block, tag))));
  await store.deleteMany((await store.list(idBlockPrefix(blogSlug))).filter((key) => !named.has(key)));
}
