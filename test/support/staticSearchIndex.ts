import { decodePostings, chunkKey, chunkOf, deltaKey, metaKey, type ChunkFile, type FragmentEntry, type FragmentFile, type StaticMeta } from '../../src/search/static/staticFormat.js';
import type { SiteStore } from '../../src/storage/siteStore.js';

/**
 * What a blog's static search index says, read from its public files as the browser reads
 * them, with ordinals replaced by the post's path: two layouts of the same posts (a fresh build
 * and a history of publishes) read the same. Throws on what a reader could trip on: a term in
 * the wrong chunk, a live posting without its post, a post listed twice.
 */
export interface LogicalIndex {
  docs: number;
  /** `term → path → weighted tf`, each sorted. */
  postings: Record<string, Record<string, number>>;
  entries: Record<string, FragmentEntry>;
}

async function json<T>(store: SiteStore, key: string): Promise<T | null> {
  const stored = await store.get(key);
  return stored ? (JSON.parse(stored.body.toString('utf8')) as T) : null;
}

export async function readStaticIndex(store: SiteStore, blog: string): Promise<LogicalIndex> {
  const meta = await json<StaticMeta>(store, metaKey(blog));
  if (!meta) throw new Error(`${blog} has no static search index`);
  const dead = new Set(meta.dead);
  const pathOf = new Map<number, string>();
  const entries: Record<string, FragmentEntry> = {};
  for (const key of await store.list(`${blog}/search/d/`)) {
    const fragment = (await json<FragmentFile>(store, key))!;
    for (const [ordinal, entry] of Object.entries(fragment)) {
      if (dead.has(Number(ordinal))) throw new Error(`dead ordinal ${ordinal} still in ${key}`);
      if (Math.floor(Number(ordinal) / meta.fragment) !== Number(/(\d+)\.json$/.exec(key)![1])) throw new Error(`ordinal ${ordinal} in the wrong fragment ${key}`);
      if (entries[entry[1]]) throw new Error(`${entry[1]} listed twice`);
      pathOf.set(Number(ordinal), entry[1]);
      entries[entry[1]] = entry;
    }
  }
  if (pathOf.size !== meta.docs) throw new Error(`meta.json says ${meta.docs} posts, the fragments hold ${pathOf.size}`);
  const postings: Record<string, Record<string, number>> = {};
  const files = [
    ...Array.from({ length: meta.chunks }, (_, chunk) => ({ key: chunkKey(blog, chunk), chunk, of: meta.chunks })),
    ...Array.from({ length: meta.delta }, (_, chunk) => ({ key: deltaKey(blog, chunk), chunk, of: meta.delta })),
  ];
  for (const { key, chunk, of } of files) {
    // Every file meta.json names must exist: the browser asks for it (a 404 is a console error).
    const file = await json<ChunkFile>(store, key);
    if (file === null) throw new Error(`${key} is named by meta.json but missing`);
    for (const [term, gaps] of Object.entries(file)) {
      if (chunkOf(term, of) !== chunk) throw new Error(`${term} in ${key}`);
      const list = decodePostings(gaps);
      for (let i = 0; i < list.length; i += 2) {
        if (dead.has(list[i]!)) continue;
        const path = pathOf.get(list[i]!);
        if (path === undefined) throw new Error(`${term}: live ordinal ${list[i]} has no post`);
        if ((postings[term] ??= {})[path] !== undefined) throw new Error(`${term}: ${path} posted twice`);
        postings[term][path] = list[i + 1]!;
      }
    }
  }
  const sorted = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return {
    docs: meta.docs,
    postings: sorted(Object.fromEntries(Object.entries(postings).map(([term, byPath]) => [term, sorted(byPath) as Record<string, number>]))) as LogicalIndex['postings'],
    entries: sorted(entries) as LogicalIndex['entries'],
  };
}

/** The paths holding every term (the AND the browser computes), sorted. */
export function matchingPaths(index: LogicalIndex, terms: readonly string[]): string[] {
  if (terms.length === 0) return [];
  let paths: string[] | null = null;
  for (const term of terms) {
    const holding = new Set(Object.keys(index.postings[term] ?? {}));
    paths = (paths ?? [...holding]).filter((p) => holding.has(p));
  }
  return (paths ?? []).sort();
}
