import {
  decodePostings,
  POSTING_STRIDE,
  chunkKey,
  chunkOf,
  deltaKey,
  metaKey,
  type ChunkFile,
  type FragmentEntry,
  type FragmentFile,
  type StaticMeta,
} from '../../src/search/static/staticFormat.js';
import type { SiteStore } from '../../src/storage/siteStore.js';
import {
  chunkPathsOf,
  LENGTH_BLOCK,
  lengthPathOf,
  livePostings,
  RankedMatches,
  readableMeta,
  scoreMatches,
  STATIC_FORMAT_VERSION,
  type LengthFile,
} from '../../src/search/static/staticQuery.js';
import { queryTerms } from '../../src/search/tokenize.js';

/**
 * What a blog's static search index says, read from its public files as the browser reads
 * them, with ordinals replaced by the post's path: two layouts of the same posts (a fresh build
 * and a history of publishes) read the same. Throws on what a reader could trip on: a term in
 * the wrong chunk, a live posting without its post, a post listed twice, a post whose lengths
 * file is missing or says another length than its fragment, a total length that is not the sum of the live posts'.
 */
export interface LogicalIndex {
  docs: number;
  /** Sum of the live posts' lengths, as meta.json says (checked against the fragments). */
  length: number;
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
  const lengthOf = new Map<number, number>();
  const entries: Record<string, FragmentEntry> = {};
  for (const key of await store.list(`${blog}/search/d/`)) {
    const fragment = (await json<FragmentFile>(store, key))!;
    for (const [ordinal, entry] of Object.entries(fragment)) {
      if (dead.has(Number(ordinal))) throw new Error(`dead ordinal ${ordinal} still in ${key}`);
      if (Math.floor(Number(ordinal) / meta.fragment) !== Number(/(\d+)\.json$/.exec(key)![1]))
        throw new Error(`ordinal ${ordinal} in the wrong fragment ${key}`);
      if (entries[entry[1]]) throw new Error(`${entry[1]} listed twice`);
      pathOf.set(Number(ordinal), entry[1]);
      lengthOf.set(Number(ordinal), entry[6]);
      entries[entry[1]] = entry;
    }
  }
  if (pathOf.size !== meta.docs) throw new Error(`meta.json says ${meta.docs} posts, the fragments hold ${pathOf.size}`);
  const length = [...lengthOf.values()].reduce((sum, l) => sum + l, 0);
  if (length !== meta.length) throw new Error(`meta.json says the posts' length is ${meta.length}, the fragments sum to ${length}`);
  const postings: Record<string, Record<string, number>> = {};
  const lengthFiles = new Map<string, Promise<LengthFile | null>>();
  const lengthsFile = (ordinal: number): Promise<LengthFile | null> => {
    const path = lengthPathOf(ordinal);
    let file = lengthFiles.get(path);
    if (!file) lengthFiles.set(path, (file = json<LengthFile>(store, `${blog}/search/${path}`)));
    return file;
  };
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
      for (let i = 0; i < list.length; i += POSTING_STRIDE) {
        if (dead.has(list[i]!)) continue;
        const path = pathOf.get(list[i]!);
        if (path === undefined) throw new Error(`${term}: live ordinal ${list[i]} has no post`);
        if ((postings[term] ??= {})[path] !== undefined) throw new Error(`${term}: ${path} posted twice`);
        const lengths = await lengthsFile(list[i]!);
        if (lengths === null) throw new Error(`${term}: ${path} has no lengths file (${lengthPathOf(list[i]!)})`);
        if (lengths[list[i]! % LENGTH_BLOCK] !== lengthOf.get(list[i]!))
          throw new Error(
            `${term}: ${path} has length ${lengths[list[i]! % LENGTH_BLOCK]} in ${lengthPathOf(list[i]!)}, ${lengthOf.get(list[i]!)} in its fragment`,
          );
        postings[term][path] = list[i + 1]!;
      }
    }
  }
  const sorted = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return {
    docs: meta.docs,
    length: meta.length,
    postings: sorted(
      Object.fromEntries(Object.entries(postings).map(([term, byPath]) => [term, sorted(byPath) as Record<string, number>])),
    ) as LogicalIndex['postings'],
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

/**
 * A query answered from the static index's files by the page script's own code
 * (src/search/static/staticQuery.ts), fetching what the browser fetches: the slugs ranked
 * from..to-1 and the number of matches. Files are read once per call, as one page load would.
 */
export async function staticSearch(store: SiteStore, blog: string, q: string, from: number, to: number): Promise<{ slugs: string[]; total: number }> {
  const files = new Map<string, Promise<unknown>>();
  const file = (path: string): Promise<unknown> => {
    let body = files.get(path);
    if (!body) files.set(path, (body = json<unknown>(store, `${blog}/search/${path}`)));
    return body;
  };
  const meta = await file('meta.json');
  if (!readableMeta(meta)) throw new Error(`${blog}/search/meta.json is not of format ${STATIC_FORMAT_VERSION}`);
  const entryOf = async (ordinal: number): Promise<FragmentEntry | undefined> =>
    ((await file(`d/${Math.floor(ordinal / meta.fragment)}.json`)) as FragmentFile | null)?.[ordinal];
  const dead = new Set(meta.dead);
  const lists = await Promise.all(
    queryTerms(q).map(async (term) => livePostings((await Promise.all(chunkPathsOf(meta, term).map(file))) as (ChunkFile | null)[], term, dead)),
  );
  const ranked = new RankedMatches(await scoreMatches(meta, lists, (path) => file(path) as Promise<LengthFile | null>), entryOf);
  const ordinals = await ranked.slice(from, to);
  return { slugs: await Promise.all(ordinals.map(async (ordinal) => (await entryOf(ordinal))![5])), total: ranked.length };
}
