/**
 * A full render of a blog, a chunk of objects at a time: the objects but the post pages and
 * twins come from the plan's summaries; those of each post (most of the work, pages/catalogue.ts
 * perPost) are rendered on worker threads,
 * so every core renders a big blog, from bodies read a chunk at a time. The caller writes each
 * chunk before the next is asked for, so memory follows the chunk, not the blog. Chunks come in
 * renderSite's order and, put together, are renderSite's objects; post page bodies come back as
 * UTF-8 Buffers instead of strings (same bytes).
 *
 * The worker is the compiled `renderWorker.js` of the dist/src tree (compiledScript; under vitest
 * too, from the tree `npm test` builds). Without a compiled worker the post pages render
 * in-process, yielding to the event loop between pages.
 */
import { availableParallelism } from 'node:os';
import { TimeSlice } from '../../lib/timeSlice.js';
import { compiledScript } from '../../workers/compiledScript.js';
import type { SiteObject } from '../../storage/siteStore.js';
import type { PostLink } from '../render/renderPostPage.js';
import { renderPerPost, siteRenders, type SitePlan, type SiteRenders } from '../pages/fullRender.js';
import { perPost } from '../pages/catalogue.js';
import type { SitePostSummary } from '../../domain/siteTypes.js';
import { decodedPost, type ChunkPost } from './chunkPosts.js';
import { RenderPool } from './renderPool.js';
import type { RenderedPage, RenderRequest } from './renderWorker.js';

export interface ParallelRenderOptions {
  /** The templates folder the plan's theme was loaded from; each worker loads it again. */
  themeDir: string;
  /** Worker threads to use; 0 renders in-process. Default: one per core, at most 4. */
  workers?: number;
  /** Blogs with fewer posts render in-process: starting workers costs more than it saves. */
  minPosts?: number;
  /** Posts per chunk: bodies read, and pages rendered and handed on, together. */
  chunkPosts?: number;
  /**
   * The body bytes (HTML and Markdown source) of each of `posts` (0 for one gone), read before a
   * chunk's bodies: a chunk then ends before its bodies pass `chunkBytes`. Without it chunks are
   * bounded by count only.
   */
  bodyBytes?: (posts: readonly SitePostSummary[]) => readonly number[] | Promise<readonly number[]>;
  /** Most body bytes in one chunk (a chunk holds one post at least). Default 8 MiB. */
  chunkBytes?: number;
  /** The compiled worker; defaults to `renderWorker.js` beside this module (tests pass their own build). */
  workerScript?: URL | null;
}

/**
 * The bodies of `posts` (a run of the plan's list), in any order, as text or as UTF-8 bytes
 * (chunkPosts.ts); posts no longer published are left out (their own publish jobs render what
 * they changed).
 */
export type PostBodies = (posts: readonly SitePostSummary[]) => ChunkPost[] | Promise<ChunkPost[]>;

/**
 * From this size a whole-site render in place would hold the event loop (every request) too
 * long, while starting the workers costs time on other threads only.
 */
const DEFAULT_MIN_POSTS = 100;
const DEFAULT_CHUNK_POSTS = 200;
/**
 * A chunk of large posts would carry far more HTML than a chunk of ordinary ones, and several
 * chunks are in flight (two per worker): a blog of large posts is rendered in chunks of fewer
 * posts instead. 8 MiB is far above a chunk of ordinary posts (about 3 MiB for 200) and keeps
 * what a chunk holds in a worker well under its heap cap (renderPool.ts).
 */
const DEFAULT_CHUNK_BYTES = 8 * 1024 * 1024;
/** How long rendering in-process may run before requests waiting on the event loop get a turn. */
const SLICE_MS = 20;
/** Objects other than post pages handed on together (at most: a slice also ends a chunk). */
const LIST_CHUNK_OBJECTS = 500;

/** The compiled worker file (from dist/ under vitest), or null when none was built. */
export function renderWorkerScript(): URL | null {
  return compiledScript('publish/parallel/renderWorker');
}

/** How many objects renderSiteInChunks hands on when no post disappears meanwhile. */
export function siteObjectCount(plan: SitePlan, renders: SiteRenders = siteRenders(plan)): number {
  return renders.head.length + plan.posts.length * perPost.length + renders.tail.length;
}

/** `renders` are siteRenders(plan), when the caller has made them already (they take a while for a big blog). */
export async function* renderSiteInChunks(
  plan: SitePlan,
  bodies: PostBodies,
  options: ParallelRenderOptions,
  renders: SiteRenders = siteRenders(plan),
): AsyncGenerator<SiteObject[]> {
  const { head, tail } = renders;
  const script = options.workerScript === undefined ? renderWorkerScript() : options.workerScript;
  const workers = options.workers ?? Math.min(4, availableParallelism());
  const chunkPosts = options.chunkPosts ?? DEFAULT_CHUNK_POSTS;
  const useWorkers = script !== null && workers >= 1 && plan.posts.length >= (options.minPosts ?? DEFAULT_MIN_POSTS);
  // Started before the head is rendered: the threads load the theme meanwhile.
  let pool = useWorkers
    ? new RenderPool(script, { themeDir: options.themeDir, ctx: withoutTheme(plan) }, Math.min(workers, Math.ceil(plan.posts.length / chunkPosts)))
    : null;
  // Chunks are cut one after the other, each where its posts or their bytes reach the bound.
  let cursor = 0;
  let chunkCount = 0;
  const nextChunk = async (): Promise<Chunk | null> => {
    if (cursor >= plan.posts.length) return null;
    const start = cursor;
    let end = Math.min(start + chunkPosts, plan.posts.length);
    if (options.bodyBytes) end = start + postsWithin(await options.bodyBytes(plan.posts.slice(start, end)), options.chunkBytes ?? DEFAULT_CHUNK_BYTES);
    cursor = end;
    return { id: chunkCount++, start, end };
  };
  const renderChunk = async (chunk: Chunk): Promise<SiteObject[]> => {
    const request = await requestFor(plan, bodies, chunk);
    if (!pool) return renderInProcess(plan, request);
    return (await pool.render(request)).map(toSiteObject);
  };
  // Chunks in order, each with its rendering on the workers, or null for one rendered here when its turn comes.
  const queue: { chunk: Chunk; rendering: Promise<SiteObject[]> | null }[] = [];
  // The workers load the theme from themeDir; a caller whose theme came from elsewhere would
  // get other pages. One page of the first chunk rendered here as well catches that, and the
  // render falls back to this thread, from that chunk on.
  let checked = pool === null;
  const takeNext = async (): Promise<SiteObject[]> => {
    const { chunk, rendering } = queue.shift()!;
    if (!rendering) return renderChunk(chunk);
    const objects = await rendering;
    if (checked) return objects;
    checked = true;
    if (await sameAsHere(plan, bodies, chunk, objects)) return objects;
    await pool?.close();
    pool = null;
    for (const entry of queue) entry.rendering = null;
    return renderChunk(chunk);
  };
  try {
    yield* inSlices(head);
    // Two chunks per worker in flight: the workers render the next while this thread writes.
    const depth = pool ? pool.size * 2 : 1;
    for (let chunk = await nextChunk(); chunk; chunk = await nextChunk()) {
      const rendering = pool ? renderChunk(chunk) : null;
      // Awaited below in order; a chunk left behind by a failed one must not be an unhandled rejection.
      rendering?.catch(() => undefined);
      queue.push({ chunk, rendering });
      if (queue.length >= depth) yield await takeNext();
    }
    while (queue.length > 0) yield await takeNext();
  } finally {
    await pool?.close();
  }
  yield* inSlices(tail);
}

/** Runs of renders, each ended by LIST_CHUNK_OBJECTS objects or SLICE_MS of rendering. */
async function* inSlices(renders: readonly (() => SiteObject)[]): AsyncGenerator<SiteObject[]> {
  let objects: SiteObject[] = [];
  const slice = new TimeSlice(SLICE_MS);
  for (const render of renders) {
    objects.push(encoded(render()));
    if (objects.length >= LIST_CHUNK_OBJECTS || slice.over) {
      yield objects;
      objects = [];
      await slice.next();
    }
  }
  if (objects.length > 0) yield objects;
}

/** A run of the plan's posts, [start, end), rendered together. */
interface Chunk {
  id: number;
  start: number;
  end: number;
}

/** How many of the posts, from the first, fit in `budget` bytes: one at least. */
function postsWithin(bytes: readonly number[], budget: number): number {
  let total = bytes[0] ?? 0;
  let count = 1;
  while (count < bytes.length && total + bytes[count]! <= budget) total += bytes[count++]!;
  return Math.max(1, Math.min(count, bytes.length));
}

async function requestFor(plan: SitePlan, bodies: PostBodies, { id: chunk, start, end }: Chunk): Promise<RenderRequest> {
  const listed = plan.posts.slice(start, end);
  const byId = new Map(listed.map((post, i) => [post.id, start + i]));
  const posts = (await bodies(listed)).filter((post) => byId.has(post.id)).sort((a, b) => byId.get(a.id)! - byId.get(b.id)!);
  const neighbours = posts.map((post) => {
    const index = byId.get(post.id)!;
    return { older: toLink(plan.posts[index - 1]), newer: toLink(plan.posts[index + 1]) };
  });
  return { chunk, posts, neighbours };
}

/** Whether the first page the workers rendered of `chunk` is the one this thread renders. */
async function sameAsHere(plan: SitePlan, bodies: PostBodies, chunk: Chunk, objects: readonly SiteObject[]): Promise<boolean> {
  const theirs = objects[0];
  if (!theirs) return true;
  const request = await requestFor(plan, bodies, { id: chunk.id, start: chunk.start, end: chunk.start + 1 });
  const [mine] = await renderInProcess(plan, request);
  return !mine || mine.key !== theirs.key || sameObject(mine, theirs);
}

async function renderInProcess(plan: SitePlan, request: RenderRequest): Promise<SiteObject[]> {
  const pages: SiteObject[] = [];
  const slice = new TimeSlice(SLICE_MS);
  for (const [i, post] of request.posts.entries()) {
    for (const page of renderPerPost(plan.ctx, decodedPost(post), request.neighbours[i] ?? {})) pages.push(encoded(page));
    if (slice.over) await slice.next();
  }
  return pages;
}

/**
 * The object with its body as UTF-8 bytes, encoded as soon as it is rendered: a body's text is
 * joined from many pieces, and joining them while they are young and close together costs far
 * less than after a whole chunk is rendered (renderWorker.ts; the write encodes them anyway).
 */
function encoded(object: SiteObject): SiteObject {
  return typeof object.body === 'string' ? { ...object, body: Buffer.from(object.body, 'utf8') } : object;
}

function toLink(post: PostLink | undefined): PostLink | null {
  return post ? { slug: post.slug, title: post.title } : null;
}

function withoutTheme(plan: SitePlan): Omit<SitePlan['ctx'], 'theme'> {
  const { theme: _theme, ...ctx } = plan.ctx;
  return ctx;
}

function toSiteObject(page: RenderedPage): SiteObject {
  return {
    key: page.key,
    body: Buffer.from(page.body.buffer, page.body.byteOffset, page.body.byteLength),
    contentType: page.contentType,
    cacheControl: page.cacheControl,
  };
}

function sameObject(a: SiteObject, b: SiteObject): boolean {
  return a.key === b.key && a.contentType === b.contentType && a.cacheControl === b.cacheControl && Buffer.from(a.body).equals(Buffer.from(b.body));
}
