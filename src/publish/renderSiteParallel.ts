/**
 * renderSite with the post pages (most of the work) rendered on worker threads, so both cores
 * of a small VM render a big blog. Returns the same objects in the same order as renderSite;
 * post page bodies come back as UTF-8 Buffers instead of strings (same bytes).
 *
 * The worker is the compiled `renderWorker.js` (compiledScript: beside this module in dist/, or
 * from the dist/ tree `npm test` builds when this module runs as `.ts` under vitest). Without a
 * compiled worker the render runs in-process.
 */
import { availableParallelism } from 'node:os';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { compiledScript } from '../workers/compiledScript.js';
import type { SiteObject } from '../storage/siteStore.js';
import type { PostLink } from './render/renderPostPage.js';
import { renderPostPage } from './render/renderPostPage.js';
import { planSite, postNeighbours, renderSite, siteObjects, type SiteInput, type SitePlan } from './render/renderSite.js';
import type { RenderedPage, RenderReply, RenderRequest, RenderWorkerData } from './renderWorker.js';

export interface ParallelRenderOptions {
  /** The templates folder `input.theme` was loaded from; each worker loads it again. */
  themeDir: string;
  /** Worker threads to use; 0 renders in-process. Default: one per core, at most 4. */
  workers?: number;
  /** Blogs with fewer posts render in-process: starting workers costs more than it saves. */
  minPosts?: number;
  /** Posts per chunk handed to a worker. */
  chunkPosts?: number;
  /** The compiled worker; defaults to `renderWorker.js` beside this module (tests pass their own build). */
  workerScript?: URL | null;
}

/**
 * Starting the workers costs a few hundred milliseconds, but on other threads: from this size a
 * whole-site render in place would hold the event loop (every request) for tens of milliseconds.
 */
const DEFAULT_MIN_POSTS = 100;
const DEFAULT_CHUNK_POSTS = 200;

/** The compiled worker file (from dist/ under vitest), or null when none was built. */
export function renderWorkerScript(): URL | null {
  return compiledScript(import.meta.url, 'renderWorker');
}

export async function renderSiteParallel(input: SiteInput, options: ParallelRenderOptions): Promise<SiteObject[]> {
  const script = options.workerScript === undefined ? renderWorkerScript() : options.workerScript;
  const workers = options.workers ?? Math.min(4, availableParallelism());
  if (!script || workers < 1 || input.posts.length < (options.minPosts ?? DEFAULT_MIN_POSTS)) return renderSite(input);

  const plan = planSite(input);
  const chunkPosts = options.chunkPosts ?? DEFAULT_CHUNK_POSTS;
  const requests: RenderRequest[] = [];
  for (let start = 0; start < plan.posts.length; start += chunkPosts) {
    const posts = plan.posts.slice(start, start + chunkPosts);
    const neighbours = posts.map((_, i) => {
      const { older, newer } = postNeighbours(plan.posts, start + i);
      return { older: toLink(older), newer: toLink(newer) };
    });
    requests.push({ chunk: requests.length, posts, neighbours });
  }
  const chunks = await renderOnWorkers(script, { themeDir: options.themeDir, ctx: withoutTheme(plan) }, requests, Math.min(workers, requests.length));
  const pages = chunks.flat().map(toSiteObject);

  // The workers load the theme from themeDir; a caller whose theme came from elsewhere would get
  // other pages. Comparing one page rendered here catches that and falls back to this thread.
  const first = plan.posts[0];
  if (first && !sameObject(renderPostPage(plan.ctx, first, postNeighbours(plan.posts, 0)), pages[0])) return renderSite(input);
  return assembleCooperatively(input, plan, pages);
}

/** How long the list pages may render before requests waiting on the event loop get a turn. */
const SLICE_MS = 20;

async function assembleCooperatively(input: SiteInput, plan: SitePlan, pages: readonly SiteObject[]): Promise<SiteObject[]> {
  const objects: SiteObject[] = [];
  let sliceStart = performance.now();
  for (const object of siteObjects(input, plan, pages)) {
    objects.push(object);
    if (performance.now() - sliceStart > SLICE_MS) {
      await yieldToLoop();
      sliceStart = performance.now();
    }
  }
  return objects;
}

function toLink(post: PostLink | null): PostLink | null {
  return post ? { slug: post.slug, title: post.title } : null;
}

function withoutTheme(plan: SitePlan): RenderWorkerData['ctx'] {
  const { theme: _theme, ...ctx } = plan.ctx;
  return ctx;
}

function toSiteObject(page: RenderedPage): SiteObject {
  return { key: page.key, body: Buffer.from(page.body.buffer, page.body.byteOffset, page.body.byteLength), contentType: page.contentType, cacheControl: page.cacheControl };
}

function sameObject(a: SiteObject, b: SiteObject | undefined): boolean {
  return (
    b !== undefined &&
    a.key === b.key &&
    a.contentType === b.contentType &&
    a.cacheControl === b.cacheControl &&
    Buffer.from(a.body).equals(Buffer.from(b.body))
  );
}

async function renderOnWorkers(script: URL, data: RenderWorkerData, requests: readonly RenderRequest[], count: number): Promise<RenderedPage[][]> {
  const results = new Array<RenderedPage[]>(requests.length);
  let next = 0;
  const pool = Array.from({ length: count }, () => new Worker(script, { workerData: data }));
  try {
    await Promise.all(
      pool.map(
        (worker) =>
          new Promise<void>((resolve, reject) => {
            const send = (): void => {
              if (next >= requests.length) {
                resolve();
                return;
              }
              worker.postMessage(requests[next++]);
            };
            worker.on('message', (reply: RenderReply) => {
              if ('error' in reply) {
                reject(new Error(`render worker failed on chunk ${reply.chunk}: ${reply.error}`));
                return;
              }
              results[reply.chunk] = reply.pages;
              send();
            });
            worker.on('error', reject);
            worker.on('exit', (code) => {
              if (next < requests.length || code !== 0) reject(new Error(`render worker exited early (code ${code})`));
            });
            send();
          }),
      ),
    );
  } finally {
    await Promise.all(pool.map((w) => w.terminate()));
  }
  return results;
}
