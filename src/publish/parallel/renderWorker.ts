/**
 * Worker thread of a parallel full render (renderSiteInChunks.ts): renders the post pages and twins of
 * the chunks it is sent with the theme it loads itself (compiled eta functions cannot cross
 * threads), and hands the bodies back as UTF-8 bytes, transferred instead of copied.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { RenderContext } from '../render/renderContext.js';
import type { PostLink } from '../render/renderPostPage.js';
import { renderPerPost } from '../pages/fullRender.js';
import { loadTheme } from '../render/renderTheme.js';
import { decodedPost, type ChunkPost } from './chunkPosts.js';

export interface RenderWorkerData {
  /** The templates folder the caller's theme was loaded from. */
  themeDir: string;
  /** The shared render context, minus the theme. */
  ctx: Omit<RenderContext, 'theme'>;
}

export interface RenderRequest {
  chunk: number;
  /** Bodies given as bytes were transferred (chunkPosts.ts). */
  posts: ChunkPost[];
  /** `neighbours[i]` are the links of `posts[i]`. */
  neighbours: { older: PostLink | null; newer: PostLink | null }[];
}

export interface RenderedPage {
  key: string;
  body: Uint8Array;
  contentType: string;
  cacheControl: string;
}

export type RenderReply = { chunk: number; pages: RenderedPage[] } | { chunk: number; error: string };

const port = parentPort;
if (port) {
  const data = workerData as RenderWorkerData;
  const ctx: RenderContext = { ...data.ctx, theme: loadTheme(data.themeDir) };
  const encoder = new TextEncoder();
  port.on('message', (request: RenderRequest) => {
    let reply: RenderReply;
    try {
      // Each post's pages are encoded as soon as they are rendered, while the pieces their text
      // was joined from are young and close together: encoded after the whole chunk, the same
      // bodies took the worker about 40% longer (most of it spent joining the pieces).
      const pages = request.posts.flatMap((post, i) =>
        renderPerPost(ctx, decodedPost(post), request.neighbours[i] ?? {}).map((page): RenderedPage => {
          // TextEncoder gives each body its own ArrayBuffer; a pooled Buffer's could not be transferred.
          const body = typeof page.body === 'string' ? encoder.encode(page.body) : new Uint8Array(page.body);
          return { key: page.key, body, contentType: page.contentType, cacheControl: page.cacheControl };
        }),
      );
      reply = { chunk: request.chunk, pages };
    } catch (err) {
      reply = { chunk: request.chunk, error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
    }
    port.postMessage(reply, 'pages' in reply ? reply.pages.map((page) => page.body.buffer as ArrayBuffer) : []);
  });
}
